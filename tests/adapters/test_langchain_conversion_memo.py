"""A LangChain chat model on the reference engine converts each history message once, not
once per model call, and never serves a stale conversion of a message that changed.

Each guard is shown catching its bug on a deliberately buggy twin of the memo.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.tools import tool

import hookproof.adapters.langchain._conversion_memo as memo_module
import hookproof.adapters.langchain._convert as convert_module
import hookproof.adapters.langchain.bridge._views as views_module
from hookproof.adapters.langchain import ScriptedChatModel, on_reference_engine
from hookproof.models import call
from hookproof.requests import FinalRequest


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"found:{query}"


def _texts_seen() -> tuple[ScriptedChatModel, list[str]]:
    """A chat model that answers "ok" and records the text of the last message it was sent."""
    seen: list[str] = []

    def answer(request: FinalRequest) -> str:
        seen.append(request.messages[-1].text)
        return "ok"

    return ScriptedChatModel(answer), seen


@pytest.fixture
def conversions(monkeypatch: pytest.MonkeyPatch) -> list[BaseMessage]:
    """Every LangChain message converted to a hookproof message while the test runs."""
    converted: list[BaseMessage] = []
    real = convert_module.to_message

    def counting(message: BaseMessage) -> Any:
        converted.append(message)
        return real(message)

    monkeypatch.setattr(convert_module, "to_message", counting)
    return converted


def _tool_turns(turns: int) -> Any:
    played = [0]

    def turn(request: FinalRequest) -> Any:
        played[0] += 1
        if played[0] > turns:
            return "done"
        return call("lookup", {"query": "x"}, id=f"call_{played[0]}")

    def build(model: Any) -> Any:
        return create_agent(model, [lookup])

    return on_reference_engine(build)(ScriptedChatModel(turn))


def test_each_history_message_is_converted_once_across_model_calls(
    conversions: list[BaseMessage],
) -> None:
    turns = 30
    result = _tool_turns(turns).invoke({"messages": [("user", "hi")]})

    assert len(result["messages"]) == 2 * turns + 2
    # 31 model calls, each sent the whole history: without the memo ~1,000 conversions,
    # with it a few per turn (the history's views, the answers and tool results read back).
    assert len(conversions) == len({id(message) for message in conversions})
    assert len(conversions) <= 4 * (turns + 1)


def test_a_plain_langchain_message_changed_in_place_is_converted_again() -> None:
    model, seen = _texts_seen()
    message = HumanMessage(content="before")

    model.invoke([message])
    message.content = "after"
    model.invoke([message])

    assert seen == ["before", "after"]


def test_the_plain_message_guard_catches_a_memo_that_keeps_every_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kept: dict[int, Any] = {}

    def keeps_everything(messages: Any, convert: Callable[[Any], Any]) -> Any:
        return [kept.setdefault(id(message), convert(message)) for message in messages]

    monkeypatch.setattr(convert_module, "converted_all", keeps_everything)
    model, seen = _texts_seen()
    message = HumanMessage(content="before")

    model.invoke([message])
    message.content = "after"
    model.invoke([message])

    assert seen == ["before", "before"]  # the buggy twin serves the stale conversion


def _plain_message_after_a_history() -> list[str]:
    """A model sent a bridge history and then a plain message, twice, the plain message
    changed in place between the calls: what the model saw last each time."""
    history_views: list[BaseMessage] = []

    class Keeps(AgentMiddleware):  # type: ignore[type-arg]
        def before_model(self, state: Any, runtime: Any) -> None:
            history_views[:] = state["messages"]

    def build(model: Any) -> Any:
        return create_agent(model, [], middleware=[Keeps()])

    on_reference_engine(build)(ScriptedChatModel(["done"])).invoke({"messages": [("user", "hi")]})
    model, seen = _texts_seen()
    plain = HumanMessage(content="before")
    model.invoke([*history_views, plain])
    plain.content = "after"
    model.invoke([*history_views, plain])
    return seen


def test_a_plain_message_after_an_unchanging_history_is_converted_again() -> None:
    assert _plain_message_after_a_history() == ["before", "after"]


def test_the_prefix_guard_catches_a_memo_that_keeps_plain_messages_in_its_prefix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(memo_module, "_unchanging_count", lambda messages: len(messages))

    assert _plain_message_after_a_history() == ["before", "before"]


def _edit_in_a_node_hook() -> tuple[list[str], list[str]]:
    """A before_model hook that sends the state's first message to a probe model, edits it in
    place (as HumanInTheLoopMiddleware edits the last AIMessage), sends it again and returns
    it. Returns what the probe saw during the hook and, after the run, for the same view."""
    probe, seen = _texts_seen()
    views: list[BaseMessage] = []

    class EditsInPlace(AgentMiddleware):  # type: ignore[type-arg]
        def before_model(self, state: Any, runtime: Any) -> Any:
            if views:
                return None
            view = state["messages"][0]
            views.append(view)
            probe.invoke([view])
            view.content = "edited"
            probe.invoke([view])
            return {"messages": [view]}

    def build(model: Any) -> Any:
        return create_agent(model, [], middleware=[EditsInPlace()])

    agent = on_reference_engine(build)(ScriptedChatModel(["done"]))
    agent.invoke({"messages": [("user", "original")]})
    during = list(seen)
    seen.clear()
    probe.invoke([views[0]])
    return during, seen


def test_a_view_edited_in_a_node_hook_is_converted_as_edited_then_as_restored() -> None:
    during, after = _edit_in_a_node_hook()

    assert during == ["original", "edited"]
    assert after == ["original"]


def test_the_edit_guard_catches_a_memo_that_is_not_told_of_the_edit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(views_module, "forget_conversion", lambda message: None)

    during, _after = _edit_in_a_node_hook()

    assert during == ["original", "original"]  # the buggy twin serves the stale conversion


def test_the_edit_guard_catches_a_prefix_memo_that_is_not_told_of_the_edit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(memo_module, "_forget_prefixes", lambda: None)

    during, _after = _edit_in_a_node_hook()

    assert during == ["original", "original"]  # the buggy twin serves the stale conversion
