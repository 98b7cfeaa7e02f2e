"""Requests say who sent them, on the reference engine and the harness: FinalRequest.sender
(name and depth), the recorders' selectors, and the snapshot line that names a subagent.

The buggy twin: two subagents built from one template (the same prompt, tools and model), and
a delegation router that sends the question to the wrong one. What the model receives is the
same; only the snapshot's ``agent:`` line tells the twins apart.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from hookproof.errors import InvalidInputError, UsageError
from hookproof.harness import create_deep_agent
from hookproof.models import FinalRequest, RecordingModel, ScriptedModel, Sender, call
from hookproof.runtime import Agent, AgentMiddleware, ToolCallRequest, create_agent, tool
from hookproof.snapshot import diff, parse, render

TEMPLATE = "You look things up for the support team."
QUESTION = "What is the refund policy?"


@tool
def lookup(query: str) -> str:
    """Search the help center."""
    return f"found {query}"


def _support_app(model: Any, route: str) -> Agent:
    """A main agent whose ``delegate`` tool runs subagent ``route`` (the fixed app:
    researcher; the buggy twin: reviewer, a copy-paste slip)."""
    agents = {
        name: create_agent(model, [lookup], name=name, system_prompt=TEMPLATE)
        for name in ("researcher", "reviewer")
    }

    @tool
    def delegate(question: str) -> str:
        """Hand a question to the researcher."""
        return agents[route].invoke({"messages": [("user", question)]}).text

    return create_agent(model, [delegate], name="support")


def _delegating_model() -> RecordingModel:
    return RecordingModel(
        ScriptedModel([call("delegate", {"question": QUESTION}), "Found.", "Done."])
    )


def _run_support_app(route: str) -> RecordingModel:
    model = _delegating_model()
    _support_app(model, route).invoke({"messages": [("user", "Refunds?")]})
    return model


class Delegation(AgentMiddleware):
    """Sends every delegation to ``to`` (None: where the model asked)."""

    def __init__(self, to: str | None) -> None:
        self.to = to

    def wrap_tool_call(self, request: ToolCallRequest, handler: Callable[..., Any]) -> Any:
        call_ = request.tool_call
        if call_["name"] == "task" and self.to is not None:
            args = {**call_["args"], "subagent_type": self.to}
            request = request.override(tool_call={**call_, "args": args})
        return handler(request)


def _deep_app(model: Any, route_to: str | None) -> Agent:
    subagents = [
        {"name": name, "description": f"The {name}.", "system_prompt": TEMPLATE, "tools": [lookup]}
        for name in ("researcher", "reviewer")
    ]
    return create_deep_agent(
        model, [lookup], subagents=subagents, middleware=[Delegation(route_to)]
    )


def _run_deep_app(route_to: str | None) -> RecordingModel:
    task = call("task", {"description": QUESTION, "subagent_type": "researcher"})
    model = RecordingModel(ScriptedModel([task, "Found.", "Done."]))
    _deep_app(model, route_to).invoke({"messages": [("user", "Refunds?")]})
    return model


# -- FinalRequest.sender ----------------------------------------------------------------


def test_the_reference_engine_names_the_main_agent_and_the_subagent_a_tool_ran() -> None:
    model = _run_support_app("researcher")
    assert [item.sender for item in model.requests] == [
        Sender("support", 0),
        Sender("researcher", 1),
        Sender("support", 0),
    ]


def test_a_subagent_of_a_subagent_is_depth_two() -> None:
    model = RecordingModel(
        ScriptedModel([call("ask", {"q": "a"}), call("ask_deeper", {"q": "b"}), "b", "a", "ok"])
    )
    analyst = create_agent(model, [], name="analyst")

    @tool
    def ask_deeper(q: str) -> str:
        """Ask the analyst."""
        return analyst.invoke({"messages": [("user", q)]}).text

    researcher = create_agent(model, [ask_deeper], name="researcher")

    @tool
    def ask(q: str) -> str:
        """Ask the researcher."""
        return researcher.invoke({"messages": [("user", q)]}).text

    create_agent(model, [ask]).invoke({"messages": [("user", "hi")]})
    senders = [(item.sender.name, item.sender.depth) for item in model.requests if item.sender]
    assert senders == [
        ("agent", 0),
        ("researcher", 1),
        ("analyst", 2),
        ("researcher", 1),
        ("agent", 0),
    ]
    assert model.first(depth=2).messages[-1].text == "b"


def test_ainvoke_records_the_same_senders() -> None:
    model = _delegating_model()
    agents = {"researcher": create_agent(model, [lookup], name="researcher")}

    @tool
    async def delegate(question: str) -> str:
        """Hand a question to the researcher."""
        return (await agents["researcher"].ainvoke({"messages": [("user", question)]})).text

    agent = create_agent(model, [delegate], name="support")
    asyncio.run(agent.ainvoke({"messages": [("user", "Refunds?")]}))
    assert [item.sender for item in model.requests] == [
        Sender("support", 0),
        Sender("researcher", 1),
        Sender("support", 0),
    ]


def test_the_harness_names_the_subagent_task_ran() -> None:
    model = _run_deep_app(None)
    assert [item.sender for item in model.requests] == [
        Sender("deep-agent", 0),
        Sender("researcher", 1),
        Sender("deep-agent", 0),
    ]
    assert model.first("researcher").system_text.startswith(TEMPLATE)


def test_a_request_built_by_hand_has_no_sender_and_one_can_be_attached() -> None:
    final = FinalRequest(model="m")
    assert final.sender is None
    sent = final.with_sender(Sender("researcher", 1))
    assert sent.sender == Sender("researcher", 1) and sent == final  # outside equality
    assert sent.with_sender(None).sender is None
    with pytest.raises(UsageError, match="with_sender takes a Sender"):
        final.with_sender("researcher")  # type: ignore[arg-type]


def test_a_renamed_recording_keeps_sender_and_provenance() -> None:
    model = RecordingModel(ScriptedModel(["Found.", "Done."]), name="fast")
    inner = create_agent(model, [lookup], name="researcher")

    @tool
    def delegate(question: str) -> str:
        """Hand a question to the researcher."""
        return inner.invoke({"messages": [("user", question)]}).text

    outer = RecordingModel(ScriptedModel([call("delegate", {"question": "q"}), "ok"]))
    create_agent(outer, [delegate]).invoke({"messages": [("user", "hi")]})
    assert model.last.model == "fast" and model.last.sender == Sender("researcher", 1)
    assert model.last.provenance is not None


# -- the selector -----------------------------------------------------------------------


def test_first_and_requests_by_select_an_agents_requests() -> None:
    model = _run_support_app("researcher")
    assert model.first("researcher") is model.requests[1]
    assert model.requests_by("support") == (model.requests[0], model.requests[2])
    assert model.requests_by(depth=0) == model.requests_by("support", depth=0)
    assert model.first() is model.requests[0]


def test_a_selector_that_matches_nothing_says_who_did_send() -> None:
    model = _run_support_app("reviewer")  # the buggy twin: researcher never ran
    with pytest.raises(InvalidInputError) as raised:
        model.first("researcher")
    message = str(raised.value)
    assert "recorded no request from agent 'researcher'" in message
    assert "2 from main agent 'support', 1 from subagent 'reviewer' (depth 1)" in message
    with pytest.raises(InvalidInputError, match="agent 'support' at depth 1"):
        model.first("support", depth=1)


def test_a_selector_on_an_empty_recorder_says_to_run_the_agent() -> None:
    with pytest.raises(InvalidInputError, match="no request at all: run the agent first"):
        _delegating_model().first("researcher")


@pytest.mark.parametrize("bad", [{"agent": 1}, {"depth": -1}, {"depth": True}, {"depth": "1"}])
def test_a_bad_selector_is_a_usage_error(bad: dict[str, Any]) -> None:
    with pytest.raises(UsageError, match=r"Example: recorder\.first"):
        _run_support_app("researcher").first(**bad)


# -- snapshots: the buggy twin is caught by the agent line alone ------------------------


def _twins(run: Callable[[Any], RecordingModel], fixed: Any, buggy: Any) -> tuple[str, str]:
    return render(run(fixed).first(depth=1)), render(run(buggy).first(depth=1))


@pytest.mark.parametrize(
    ("run", "fixed", "buggy"),
    [(_run_support_app, "researcher", "reviewer"), (_run_deep_app, None, "reviewer")],
    ids=["reference engine", "harness"],
)
def test_a_subagent_snapshot_catches_the_wrong_subagent(
    run: Callable[[Any], RecordingModel], fixed: Any, buggy: Any
) -> None:
    reviewed, now = _twins(run, fixed, buggy)
    assert "\nagent: researcher (depth 1)\n" in reviewed
    assert now != reviewed  # the snapshot assertion fails on the buggy twin
    assert now.replace("reviewer (depth 1)", "researcher (depth 1)") == reviewed  # only there
    (change,) = diff(reviewed, now).changes
    assert (change.kind.value, change.subject) == ("REVIEW", "agent")
    assert change.what == "now sent by subagent reviewer (depth 1)"
    without_line = [parse(text).sender for text in (reviewed, now)]
    assert without_line == [Sender("researcher", 1), Sender("reviewer", 1)]


def test_without_the_agent_line_the_twins_would_snapshot_the_same() -> None:
    fixed, buggy = (_run_deep_app(to).first(depth=1) for to in (None, "reviewer"))
    assert render(fixed.with_sender(None)) == render(buggy.with_sender(None))


def test_the_main_agents_snapshot_is_byte_identical_to_before() -> None:
    model = _run_deep_app(None)
    main = model.first(depth=0)
    assert render(main) == render(main.with_sender(None))
    assert "\nagent:" not in render(main) and render(main).startswith(
        "hookproof final request, format 2\n"
    )
