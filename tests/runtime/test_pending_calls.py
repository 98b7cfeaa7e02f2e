"""Which tool calls are still pending: LangChain's rule (a ToolMessage anywhere in the history
answers a call id), read incrementally across the steps of one run."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from hookproof.messages import AssistantMessage, Message, ToolCall, ToolMessage, UserMessage
from hookproof.models import ScriptedModel, call
from hookproof.runtime import create_agent, tool
from hookproof.runtime._dialect import LangChainDialect

IDS = ["a", "b", "c"]


def _plain(messages: list[Message]) -> list[str] | None:
    last = next((m for m in reversed(messages) if isinstance(m, AssistantMessage)), None)
    if last is None or not last.tool_calls:
        return None
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    return [c.id or "" for c in last.tool_calls if c.id not in answered]


def _asking(ids: list[str]) -> AssistantMessage:
    calls = tuple(ToolCall(name="t", args={}, id=i) for i in ids)
    return AssistantMessage(content="", tool_calls=calls)


step = st.one_of(
    st.tuples(st.just("ask"), st.lists(st.sampled_from(IDS), min_size=1, max_size=2)),
    st.tuples(st.just("answer"), st.sampled_from(IDS)),
    st.tuples(st.just("drop"), st.integers(0, 20)),
)


@given(st.lists(step, max_size=12))
def test_incremental_reading_agrees_with_reading_the_whole_history(steps: list[Any]) -> None:
    dialect: Any = LangChainDialect.__new__(LangChainDialect)
    run: Any = SimpleNamespace(local={})
    history: list[Message] = [UserMessage(content="go")]
    for kind, value in steps:
        if kind == "ask":
            history = [*history, _asking(value)]
        elif kind == "answer":
            history = [*history, ToolMessage(content="ok", tool_call_id=value)]
        else:  # a hook removed a message: the history is no longer an extension
            history = [m for i, m in enumerate(history) if i != value % len(history)]
        found = dialect.pending_calls(run, tuple(history))
        expected = _plain(history)
        assert (None if found is None else [c.id for c in found]) == expected


def test_a_long_run_of_tool_turns_runs_every_call() -> None:
    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        return query

    turns: list[Any] = [call("lookup", {"query": str(i)}, id=f"c{i}") for i in range(300)]
    agent = create_agent(ScriptedModel([*turns, "done"]), [lookup], max_iterations=302)
    result = agent.invoke({"messages": [("user", "hi")]})
    answers = [m.text for m in result.messages if isinstance(m, ToolMessage)]
    assert answers == [str(i) for i in range(300)] and result.text == "done"
