"""Which tool calls are still pending: LangChain's rule (a ToolMessage after the last assistant
message answers a call id of that message; an older one with the same id does not), and a
model that reuses ids loses no call."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof.errors import InvalidInputError
from hookproof.messages import AssistantMessage, Message, ToolCall, ToolMessage, UserMessage
from hookproof.models import ScriptedModel, call
from hookproof.runtime import create_agent, tool
from hookproof.runtime._dialect import LangChainDialect

IDS = ["a", "b", "c"]


def _plain(messages: list[Message]) -> list[str] | None:
    where = [i for i, m in enumerate(messages) if isinstance(m, AssistantMessage)]
    if not where or not messages[where[-1]].tool_calls:
        return None
    after = messages[where[-1] + 1 :]
    answered = {m.tool_call_id for m in after if isinstance(m, ToolMessage)}
    return [c.id or "" for c in messages[where[-1]].tool_calls if c.id not in answered]


def _asking(ids: list[str]) -> AssistantMessage:
    calls = tuple(ToolCall(name="t", args={}, id=i) for i in ids)
    return AssistantMessage(content="", tool_calls=calls)


step = st.one_of(
    st.tuples(st.just("ask"), st.lists(st.sampled_from(IDS), min_size=1, max_size=2)),
    st.tuples(st.just("answer"), st.sampled_from(IDS)),
    st.tuples(st.just("drop"), st.integers(0, 20)),
)


@given(st.lists(step, max_size=12))
def test_pending_calls_agree_with_langchains_rule(steps: list[Any]) -> None:
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


@tool
def echo(text: str) -> str:
    """Say it back."""
    return text


# LangChain's own TodoListMiddleware tests reuse one id on every turn; providers do too.
REUSING_IDS: list[Any] = [
    call("echo", {"text": "1"}, id="same"),
    call("echo", {"text": "2"}, id="same"),
    [call("echo", {"text": "3"}, id="same"), call("echo", {"text": "4"}, id="same")],
    "done",
]


def _answers(messages: tuple[Message, ...]) -> list[tuple[str, str]]:
    return [(m.tool_call_id, m.text) for m in messages if isinstance(m, ToolMessage)]


def test_a_model_reusing_a_tool_call_id_loses_no_call() -> None:
    result = create_agent(ScriptedModel(REUSING_IDS), [echo]).invoke({"messages": [("user", "hi")]})
    assert _answers(result.messages) == [("same", "1"), ("same", "2"), ("same", "3"), ("same", "4")]
    assert len(result.messages) == 9 and result.text == "done"


def test_a_model_reusing_a_tool_call_id_loses_no_call_under_ainvoke() -> None:
    agent = create_agent(ScriptedModel(REUSING_IDS), [echo])
    result = asyncio.run(agent.ainvoke({"messages": [("user", "hi")]}))
    assert [text for _, text in _answers(result.messages)] == ["1", "2", "3", "4"]


def _asking_as(message_id: str, text: str, call_id: str) -> AssistantMessage:
    calls = (ToolCall(name="echo", args={"text": text}, id=call_id),)
    return AssistantMessage(content="", id=message_id, tool_calls=calls)


def test_a_response_replacing_an_earlier_message_with_its_calls_answered_is_refused() -> None:
    # add_messages would put the second response in place of the first, where the first's
    # ToolMessage already answers call "c": the call would never run (LangChain: KeyError)
    script = [_asking_as("m", "1", "c"), _asking_as("m", "2", "c"), "done"]
    agent = create_agent(ScriptedModel(script), [echo])
    with pytest.raises(InvalidInputError, match=r"message id 'm'.*tool calls \['c'\] would never"):
        agent.invoke({"messages": [("user", "hi")]})


def test_a_response_replacing_a_message_before_a_later_turn_is_refused() -> None:
    script = [_asking_as("m", "1", "a"), _asking_as("n", "2", "b"), _asking_as("m", "3", "c")]
    agent = create_agent(ScriptedModel([*script, "done"]), [echo])
    with pytest.raises(InvalidInputError, match=r"message \[1\] of the history.*\['c'\]"):
        agent.invoke({"messages": [("user", "hi")]})


def test_a_response_replacing_an_earlier_message_with_new_call_ids_runs_them() -> None:
    script = [_asking_as("m", "1", "a"), _asking_as("m", "2", "b"), "done"]
    result = create_agent(ScriptedModel(script), [echo]).invoke({"messages": [("user", "hi")]})
    assert _answers(result.messages) == [("a", "1"), ("b", "2")]  # in place, as add_messages
    kinds = [type(m).__name__ for m in result.messages]
    assert kinds == [
        "UserMessage",
        "AssistantMessage",
        "ToolMessage",
        "ToolMessage",
        "AssistantMessage",
    ]
    assert result.messages[1].id == "m" and result.messages[1].tool_calls[0].id == "b"


# -- calls the provider could not parse ---------------------------------------------------------


def _unparsed(*ids: str | None) -> AssistantMessage:
    calls = [{"name": "t", "args": "{", "id": i, "error": "bad JSON"} for i in ids]
    return AssistantMessage(content="", additional_kwargs={"invalid_tool_calls": calls})


def test_an_unparsed_call_ends_its_turn_and_is_answered_before_the_next_model_call() -> None:
    model = ScriptedModel([_unparsed("x"), "fine"])
    agent = create_agent(model, [])
    first = agent.invoke({"messages": [("user", "hi")]})
    assert [m.role for m in first.messages] == ["user", "assistant"]
    second = agent.invoke({"messages": [*first.messages, UserMessage("again")]})
    answer = second.final_requests[0].messages[2]
    assert isinstance(answer, ToolMessage)
    assert (answer.tool_call_id, answer.status, answer.name) == ("x", "error", "t")
    assert answer.text == (
        "Tool call t with id x could not be executed - arguments were malformed or truncated."
    )
    assert [m.role for m in second.messages] == ["user", "assistant", "tool", "user", "assistant"]


def test_only_unparsed_calls_with_an_id_and_no_answer_are_answered() -> None:
    answered = ToolMessage("seen", tool_call_id="old")
    history = [UserMessage("hi"), _unparsed("old", None, "new"), answered]
    result = create_agent(ScriptedModel(["fine"]), []).invoke({"messages": history})
    shown = result.final_requests[0].messages
    assert [(m.role, getattr(m, "tool_call_id", None)) for m in shown] == [
        ("user", None),
        ("assistant", None),
        ("tool", "new"),
        ("tool", "old"),
    ]
    assert list(result.messages[:-1]) == list(shown)  # the answers are kept in the state, once


class _LateUnparsed:
    """Before the third model call, writes an assistant message with an unparsed call:
    appended after the history, or replacing the first turn's assistant message by id."""

    def __init__(self, replace: bool) -> None:
        self.replace, self.calls = replace, 0

    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        self.calls += 1
        if self.calls != 3:
            return None
        late = _unparsed("late")
        if self.replace:
            late = late.model_copy(update={"id": "turn0"})
        return {"messages": [late]}


def _looping_agent(middleware: _LateUnparsed) -> Any:
    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        return query

    turns = [
        AssistantMessage(
            "", tool_calls=[ToolCall(name="lookup", args={"query": "q"}, id=f"c{n}")], id=f"turn{n}"
        )
        for n in range(2)
    ]
    return create_agent(ScriptedModel([*turns, "fine"]), [lookup], middleware=[middleware])


@pytest.mark.parametrize("replace", [False, True], ids=["appended", "replacing"])
def test_an_unparsed_call_written_late_in_a_run_is_answered(replace: bool) -> None:
    """A run's model calls read only the messages after the last history that needed no
    answer; a late call appended, or written over a message already read, is still found."""
    result = _looping_agent(_LateUnparsed(replace)).invoke({"messages": [("user", "hi")]})
    shown = result.final_requests[-1].messages
    answers = [m for m in shown if isinstance(m, ToolMessage) and m.tool_call_id == "late"]
    assert len(answers) == 1 and answers[0].status == "error"
    assert len(result.final_requests) == 3
