"""Differential tests, LangChain's ``create_agent`` against the reference engine running the same
LangChain middleware: a model that reuses tool-call ids (LangChain's own TodoListMiddleware
tests do) loses no call, and run-scoped state (LangGraph's ``UntrackedValue`` keys, such as
the run counters of the call-limit middleware) starts afresh on every invoke of a thread."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, NotRequired

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.agents.middleware import (
    AgentState,
    ModelCallLimitMiddleware,
    TodoListMiddleware,
    ToolCallLimitMiddleware,
)
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langgraph.channels.untracked_value import UntrackedValue
from langgraph.checkpoint.memory import InMemorySaver

from hookproof.adapters.langchain import ScriptedChatModel
from hookproof.messages import AssistantMessage, ToolCall
from hookproof.models import ScriptedModel, call
from hookproof.runtime import AgentMiddleware, InMemoryCheckpointer, create_agent


@tool
def echo(text: str) -> str:
    """Say it back."""
    return text


_ROLES = {"human": "user", "ai": "assistant"}


def _shape(message: Any) -> tuple[Any, ...]:
    """What both engines must agree on (message ids differ by design: uuid4 against m1, m2)."""
    kind = getattr(message, "role", None) or _ROLES.get(message.type, message.type)
    calls = tuple((c["name"], c["args"], c["id"]) for c in getattr(message, "tool_calls", ()))
    return kind, message.text, getattr(message, "tool_call_id", None), calls


def _shapes(messages: Any) -> list[tuple[Any, ...]]:
    return [_shape(message) for message in messages]


def _both(
    script: Callable[[], list[Any]], middleware: Callable[[], list[Any]], tools: list[Any]
) -> tuple[Any, Any]:
    """One invoke of each engine on the same script, middleware and tools."""
    langchain = langchain_create_agent(
        ScriptedChatModel(script()), tools, middleware=middleware()
    ).invoke({"messages": [HumanMessage("Hello")]})
    reference = create_agent(ScriptedChatModel(script()), tools, middleware=middleware()).invoke(
        {"messages": [HumanMessage("Hello")]}
    )
    return langchain, reference


# -- reused tool-call ids ----------------------------------------------------------------------


def _todo_script() -> list[Any]:
    """LangChain's test_todo_middleware_agent_creation_with_middleware: one id on every turn."""
    steps = ("pending", "in_progress", "completed")
    turns: list[Any] = [call("write_todos", {"todos": todos(s)}, id="test_call") for s in steps]
    return [*turns, "all done"]


def todos(status: str) -> list[dict[str, str]]:
    return [{"content": "Task 1", "status": status}]


def test_todo_list_with_one_reused_call_id_runs_every_call_as_langchain_does() -> None:
    langchain, reference = _both(_todo_script, lambda: [TodoListMiddleware()], [])
    assert len(langchain["messages"]) == 8  # LangChain's own test asserts this
    assert _shapes(reference.messages) == _shapes(langchain["messages"])
    assert reference.state["todos"] == langchain["todos"] == todos("completed")


def _reusing_script() -> list[Any]:
    return [
        call("echo", {"text": "1"}, id="same"),
        call("echo", {"text": "2"}, id="same"),
        [call("echo", {"text": "3"}, id="twice"), call("echo", {"text": "4"}, id="twice")],
        [call("echo", {"text": "5"}, id="same"), call("echo", {"text": "6"}, id="new")],
        "done",
    ]


def test_ids_reused_across_turns_and_within_one_turn_run_every_call_as_langchain_does() -> None:
    langchain, reference = _both(_reusing_script, list, [echo])
    answers = [m.text for m in langchain["messages"] if m.type == "tool"]
    assert answers == ["1", "2", "3", "4", "5", "6"]
    assert _shapes(reference.messages) == _shapes(langchain["messages"])


def _same_message_id_script() -> list[Any]:
    """Two responses with one message id: add_messages puts the second in the first's place."""
    return [
        *(
            AssistantMessage(
                content="", id="m", tool_calls=(ToolCall(name="echo", args={"text": t}, id=t),)
            )
            for t in ("1", "2")
        ),
        "done",
    ]


def test_a_response_reusing_a_message_id_replaces_it_in_place_as_in_langchain() -> None:
    langchain, reference = _both(_same_message_id_script, list, [echo])
    assert [m.type for m in langchain["messages"]] == ["human", "ai", "tool", "tool", "ai"]
    assert _shapes(reference.messages) == _shapes(langchain["messages"])


# -- run-scoped state along a thread -----------------------------------------------------------


def _limits() -> list[Any]:
    return [
        ModelCallLimitMiddleware(run_limit=2, thread_limit=10, exit_behavior="end"),
        ToolCallLimitMiddleware(run_limit=1, exit_behavior="continue"),
    ]


# Two runs of two model calls each (under both run limits), then a run that needs three.
_THREAD_SCRIPT: list[Any] = [
    call("echo", {"text": "a"}),
    "one",
    call("echo", {"text": "b"}),
    "two",
    call("echo", {"text": "c"}),
    call("echo", {"text": "d"}),
    "never",
]
_QUESTIONS = ("first", "second", "third")


def _langchain_thread() -> tuple[list[Any], dict[str, Any]]:
    agent = langchain_create_agent(
        ScriptedChatModel(list(_THREAD_SCRIPT)),
        [echo],
        middleware=_limits(),
        checkpointer=InMemorySaver(),
    )
    config: Any = {"configurable": {"thread_id": "t"}}
    runs = [agent.invoke({"messages": [HumanMessage(q)]}, config) for q in _QUESTIONS]
    return [_shapes(r["messages"]) for r in runs], dict(agent.get_state(config).values)


def _reference_thread() -> tuple[list[Any], dict[str, Any]]:
    saver = InMemoryCheckpointer()
    agent = create_agent(
        ScriptedChatModel(list(_THREAD_SCRIPT)), [echo], middleware=_limits(), checkpointer=saver
    )
    runs = [agent.invoke({"messages": [HumanMessage(q)]}, thread_id="t") for q in _QUESTIONS]
    saved = saver.get("t")
    assert saved is not None
    return [_shapes(r.messages) for r in runs], dict(saved.values)


def _without_messages(values: dict[str, Any]) -> dict[str, Any]:
    """The saved keys besides messages; the reference engine stores no ``jump_to`` (the loop
    reads it), where LangGraph keeps the last one."""
    return {key: value for key, value in values.items() if key not in ("messages", "jump_to")}


def test_call_limit_run_counters_start_afresh_on_each_invoke_of_a_thread_as_in_langchain() -> None:
    langchain_runs, langchain_saved = _langchain_thread()
    reference_runs, reference_saved = _reference_thread()
    assert reference_runs == langchain_runs
    assert "limit" not in langchain_runs[1][-1][1]  # the second run is not cut short
    assert "run limit (2/2)" in langchain_runs[2][-1][1]  # the third one is, by its own count
    assert (
        _without_messages(reference_saved)
        == _without_messages(langchain_saved)
        == {
            "thread_model_call_count": 6,
            "thread_tool_call_count": {"__all__": 3},
        }
    )


def test_langgraphs_untracked_marker_scopes_a_key_to_the_run_on_hookproof_middleware() -> None:
    saver = InMemoryCheckpointer()
    agent = create_agent(ScriptedModel(["one"]), middleware=[MarkBoth()], checkpointer=saver)
    result = agent.invoke({"messages": [("user", "hi")]}, thread_id="t")
    assert (result.state["by_class"], result.state["by_instance"]) == (1, 1)
    saved = saver.get("t")
    assert saved is not None and set(saved.values) == {"messages"}


class LangGraphMarked(AgentState):
    by_class: NotRequired[Annotated[int, UntrackedValue]]
    by_instance: NotRequired[Annotated[int, UntrackedValue(int, guard=False)]]


class MarkBoth(AgentMiddleware):
    """A hookproof middleware whose state schema uses LangGraph's marker, both ways."""

    state_schema = LangGraphMarked

    def before_model(self, state: Any, runtime: Any) -> dict[str, int]:
        return {"by_class": 1, "by_instance": 1}
