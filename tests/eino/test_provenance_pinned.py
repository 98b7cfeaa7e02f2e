"""Eino provenance pinned (an unchanged model call shares its agent's provenance; the observer is
shared by both dialects): each FinalRequest's provenance, as main gives it, for handlers that
change the tools or the system message before the model layers, between model calls, in
before_agent, on a resume, and for the model call a failover makes."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

from hookproof.eino import ChatModelAgent, InMemoryCheckpointer, ModelFailoverConfig
from hookproof.eino.toolsearch import ToolSearchMiddleware
from hookproof.models import RecordingModel, ScriptedModel, call
from tests.eino.provenance_scenarios import (
    AfterPrompt,
    DropSecond,
    Failing,
    InstructionBefore,
    ToolsBefore,
    _tool,
    ask_tool,
)

AGENT_ONLY = "system 1: agent\ntool a: registered by agent\ntool b: registered by agent"
B_REMOVED = "system 1: agent\ntool a: registered by agent\ntool b: registered by agent; removed by "


def _agent(model: Any, handlers: Any = (), **options: Any) -> ChatModelAgent:
    tools = options.pop("tools", [_tool("a"), _tool("b")])
    return ChatModelAgent(
        model=model, tools=tools, instruction="You help.", handlers=handlers, **options
    )


def _described(requests: Any) -> list[str]:
    return [request.provenance.describe() for request in requests]


def _scripted(*turns: Any) -> RecordingModel:
    return RecordingModel(ScriptedModel(list(turns)))


def test_a_state_rewrite_before_the_second_model_call_is_named_from_then_on() -> None:
    model = _scripted(call("a", {}), call("a", {}), "done")
    run = _agent(model, [DropSecond()]).run([("user", "hi")])
    assert _described(run.result.final_requests) == [
        AGENT_ONLY,
        B_REMOVED + "DropSecond",
        B_REMOVED + "DropSecond",
    ]
    assert _described(model.requests) == _described(run.result.final_requests)


def test_a_system_message_rewritten_after_a_model_call_shapes_the_next() -> None:
    run = _agent(_scripted(call("a", {}), "done"), [AfterPrompt()]).run([("user", "hi")])
    after = "system 1: agent\nsystem 2: AfterPrompt\ntool a: registered by agent\n"
    assert _described(run.result.final_requests) == [
        AGENT_ONLY,
        after + "tool b: registered by agent",
    ]


@pytest.mark.parametrize(
    ("handler", "expected"),
    [
        (ToolsBefore, B_REMOVED + "ToolsBefore"),
        (
            InstructionBefore,
            "system 1: agent\nsystem 2: InstructionBefore\n"
            "tool a: registered by agent\ntool b: registered by agent",
        ),
    ],
)
def test_before_agent_changes_are_named_on_every_model_call(handler: Any, expected: str) -> None:
    run = _agent(_scripted(call("a", {}), "done"), [handler()]).run([("user", "hi")])
    assert _described(run.result.final_requests) == [expected, expected]


def test_a_resumed_run_names_the_rewrite_its_handler_makes_after_the_pause() -> None:
    model = _scripted(call("ask", {}), "done")
    agent = _agent(
        model,
        [DropSecond()],
        tools=[_tool("a"), _tool("b"), ask_tool()],
        checkpointer=InMemoryCheckpointer(),
    )
    paused = agent.run([("user", "hi")], checkpoint_id="t")
    resumed = agent.resume("t", "yes")
    head = "system 1: agent\ntool a: registered by agent\ntool ask: registered by agent\n"
    assert _described(paused.result.final_requests) == [head + "tool b: registered by agent"]
    assert _described(resumed.result.final_requests) == [
        head + "tool b: registered by agent; removed by DropSecond"
    ]


def test_tool_search_names_what_it_adds_and_hides() -> None:
    handler = ToolSearchMiddleware([_tool("hidden")])
    run = _agent(_scripted(call("a", {}), "done"), [handler]).run([("user", "hi")])
    by = "ToolSearchMiddleware"
    expected = (
        f"{AGENT_ONLY}\ntool hidden: added by {by}; removed by {by}\n"
        f"tool tool_search: added by {by}"
    )
    assert _described(run.result.final_requests) == [expected, expected]


def test_the_failover_models_request_has_the_agents_provenance() -> None:
    backup = _scripted("from backup")
    agent = _agent(
        Failing(1),
        model_failover_config=ModelFailoverConfig(
            max_retries=1,
            should_failover=lambda ctx, out, err: err is not None,
            get_failover_model=lambda ctx, failover: backup,
        ),
    )
    run = agent.run([("user", "hi")])
    assert _described(run.result.final_requests) == [AGENT_ONLY, AGENT_ONLY]
    assert _described(backup.requests) == [AGENT_ONLY]


def test_copies_and_pickles_keep_the_provenance_of_an_unchanged_call() -> None:
    agent = _agent(_scripted("one", "two"))
    first = agent.run([("user", "hi")]).result.final_requests[0]
    second = agent.run([("user", "again")]).result.final_requests[0]
    for request in (first, second):
        assert copy.deepcopy(request).provenance == request.provenance
        assert pickle.loads(pickle.dumps(request)).provenance == request.provenance
        assert copy.copy(request).provenance == request.provenance
    assert _described([first, second]) == [AGENT_ONLY, AGENT_ONLY]
