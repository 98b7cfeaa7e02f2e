"""Requests say who sent them on real LangChain create_agent (a subagent is an agent a tool
invokes) and real deepagents (a subagent is what ``task`` runs): RecordingChatModel's
FinalRequest.sender, its selectors, and the snapshot line naming a subagent.

The buggy twin, as on the reference engine (tests/models/test_senders.py): two subagents from
one template and a delegation that reaches the wrong one; only the ``agent:`` line differs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("langchain.agents")

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.tools import tool

from hookproof.adapters.langchain import RecordingChatModel, ScriptedChatModel
from hookproof.errors import InvalidInputError
from hookproof.models import Sender, call
from hookproof.snapshot import diff, render

TEMPLATE = "You look things up for the support team."
QUESTION = "What is the refund policy?"


@tool
def lookup(query: str) -> str:
    """Search the help center."""
    return f"found {query}"


def _recorder(*turns: Any) -> RecordingChatModel:
    return RecordingChatModel(ScriptedChatModel(list(turns)))


def _support_app(model: Any, route: str) -> Any:
    agents = {
        name: create_agent(model, [lookup], name=name, system_prompt=TEMPLATE)
        for name in ("researcher", "reviewer")
    }

    @tool
    def delegate(question: str) -> str:
        """Hand a question to the researcher."""
        answer = agents[route].invoke({"messages": [("user", question)]})
        return str(answer["messages"][-1].content)

    return create_agent(model, [delegate], name="support")


def _run_support_app(route: str) -> RecordingChatModel:
    model = _recorder(call("delegate", {"question": QUESTION}), "Found.", "Done.")
    _support_app(model, route).invoke({"messages": [("user", "Refunds?")]})
    return model


class Delegation(AgentMiddleware):
    """Sends every delegation to ``to`` (None: where the model asked)."""

    def __init__(self, to: str | None) -> None:
        super().__init__()
        self.to = to

    def _routed(self, request: Any) -> Any:
        call_ = request.tool_call
        if call_["name"] != "task" or self.to is None:
            return request
        return request.override(
            tool_call={**call_, "args": {**call_["args"], "subagent_type": self.to}}
        )

    def wrap_tool_call(self, request: Any, handler: Callable[..., Any]) -> Any:
        return handler(self._routed(request))

    async def awrap_tool_call(self, request: Any, handler: Callable[..., Any]) -> Any:
        return await handler(self._routed(request))


def _run_deep_app(route_to: str | None, *, run_async: bool = False) -> RecordingChatModel:
    deepagents = pytest.importorskip("deepagents")
    task = call("task", {"description": QUESTION, "subagent_type": "researcher"})
    model = _recorder(task, "Found.", "Done.")
    subagents = [
        {"name": name, "description": f"The {name}.", "system_prompt": TEMPLATE, "tools": [lookup]}
        for name in ("researcher", "reviewer")
    ]
    agent = deepagents.create_deep_agent(
        model, [lookup], subagents=subagents, middleware=[Delegation(route_to)]
    )
    request = {"messages": [("user", "Refunds?")]}
    asyncio.run(agent.ainvoke(request)) if run_async else agent.invoke(request)
    return model


# -- FinalRequest.sender ----------------------------------------------------------------


def test_create_agent_names_the_subagent_a_tool_invoked() -> None:
    model = _run_support_app("researcher")
    assert [item.sender for item in model.requests] == [
        Sender("support", 0),
        Sender("researcher", 1),
        Sender("support", 0),
    ]


def test_an_unnamed_main_agent_is_depth_zero_without_a_name() -> None:
    model = _recorder("Done.")
    create_agent(model, [lookup]).invoke({"messages": [("user", "hi")]})
    assert model.last.sender == Sender(None, 0)


def test_a_subagent_of_a_subagent_is_depth_two() -> None:
    model = _recorder(call("ask", {"q": "a"}), call("ask_deeper", {"q": "b"}), "b", "a", "ok")
    analyst = create_agent(model, [], name="analyst")

    @tool
    def ask_deeper(q: str) -> str:
        """Ask the analyst."""
        return str(analyst.invoke({"messages": [("user", q)]})["messages"][-1].content)

    researcher = create_agent(model, [ask_deeper], name="researcher")

    @tool
    def ask(q: str) -> str:
        """Ask the researcher."""
        return str(researcher.invoke({"messages": [("user", q)]})["messages"][-1].content)

    create_agent(model, [ask]).invoke({"messages": [("user", "hi")]})
    depths = [(item.sender.name, item.sender.depth) for item in model.requests if item.sender]
    assert depths == [(None, 0), ("researcher", 1), ("analyst", 2), ("researcher", 1), (None, 0)]


def test_a_model_called_outside_an_agent_has_no_sender() -> None:
    model = _recorder("hello")
    model.invoke("hi")
    assert model.last.sender is None
    with pytest.raises(InvalidInputError, match="a caller it could not tell"):
        model.first(depth=0)


@pytest.mark.parametrize("run_async", [False, True], ids=["invoke", "ainvoke"])
def test_deepagents_names_the_subagent_task_ran(run_async: bool) -> None:
    model = _run_deep_app(None, run_async=run_async)
    assert [item.sender for item in model.requests] == [
        Sender(None, 0),
        Sender("researcher", 1),
        Sender(None, 0),
    ]
    assert model.first("researcher").system_text.startswith(TEMPLATE)


# -- the selector -----------------------------------------------------------------------


def test_first_and_requests_by_select_an_agents_requests() -> None:
    model = _run_support_app("researcher")
    assert model.first("researcher") is model.requests[1]
    assert model.requests_by("support", depth=0) == (model.requests[0], model.requests[2])


def test_a_selector_that_matches_nothing_says_who_did_send() -> None:
    model = _run_deep_app("reviewer")
    with pytest.raises(InvalidInputError) as raised:
        model.first("researcher")
    assert "1 from subagent 'reviewer' (depth 1)" in str(raised.value)
    assert "2 from main agent (unnamed)" in str(raised.value)


# -- snapshots: the buggy twin is caught by the agent line alone ------------------------


@pytest.mark.parametrize(
    ("run", "fixed", "buggy"),
    [(_run_support_app, "researcher", "reviewer"), (_run_deep_app, None, "reviewer")],
    ids=["create_agent", "deepagents"],
)
def test_a_subagent_snapshot_catches_the_wrong_subagent(
    run: Callable[[Any], RecordingChatModel], fixed: Any, buggy: Any
) -> None:
    fixed_request, buggy_request = run(fixed).first(depth=1), run(buggy).first(depth=1)
    reviewed, now = render(fixed_request), render(buggy_request)
    assert "\nagent: researcher (depth 1)\n" in reviewed
    assert now != reviewed
    assert now.replace("reviewer (depth 1)", "researcher (depth 1)") == reviewed
    (change,) = diff(reviewed, now).changes
    assert (change.subject, change.what) == ("agent", "now sent by subagent reviewer (depth 1)")
    assert render(fixed_request.with_sender(None)) == render(buggy_request.with_sender(None))


def test_a_chat_model_the_reference_engine_calls_names_the_engines_agent() -> None:
    """LangChain middleware on the reference engine: the chat model is called outside
    LangGraph, inside the engine's run, whose agent sent the request."""
    from hookproof.runtime import create_agent as create_reference_agent

    model = _recorder("Done.")
    result = create_reference_agent(model, [], name="support").invoke(
        {"messages": [("user", "hi")]}
    )
    assert model.last.sender == result.final_requests[0].sender == Sender("support", 0)
