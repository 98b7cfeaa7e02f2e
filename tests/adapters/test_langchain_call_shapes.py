"""The agent ``on_reference_engine`` builds is called as LangChain's compiled graph is.

Each case runs the same factory on LangChain's ``create_agent`` and through
``on_reference_engine`` with the same call (``invoke(input, config, context=...)``), and
compares what comes back: the state dict, its keys, its message classes and values (message
ids aside: LangGraph's are random, the reference engine's are ``m<n>``).
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, NotRequired

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain.agents.middleware.types import OmitFromInput, OmitFromOutput, PrivateStateAttr
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from hookproof.adapters.langchain import (
    LangChainShapedAgent,
    ScriptedChatModel,
    on_reference_engine,
)
from hookproof.errors import UsageError
from hookproof.models import call
from hookproof.runtime import Agent, RunResult


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _script() -> list[Any]:
    return [call("add", {"a": 1, "b": 2}), "three"]


def _app(model: Any, checkpointer: Any = None, middleware: Any = ()) -> Any:
    return langchain_create_agent(
        model, [add], checkpointer=checkpointer, middleware=list(middleware)
    )


def _both(build: Any, script: Any, *args: Any) -> tuple[Any, Any]:
    return build(ScriptedChatModel(script), *args), on_reference_engine(build)(
        ScriptedChatModel(script), *args
    )


def _shown(value: Any) -> Any:
    """A state dict as compared: messages by class and values, ids left out."""
    if isinstance(value, BaseMessage):
        shown = value.model_dump(exclude={"id", "response_metadata", "usage_metadata"})
        return (type(value).__name__, shown)
    if isinstance(value, dict):
        return {key: _shown(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shown(item) for item in value]
    return value


def test_invoke_returns_langchains_state_dict() -> None:
    graph, agent = _both(_app, _script())
    langchain = graph.invoke({"messages": [("user", "1+2?")]})
    reference = agent.invoke({"messages": [("user", "1+2?")]})
    assert isinstance(agent, LangChainShapedAgent)
    assert isinstance(agent, Agent)
    assert type(reference) is dict
    assert _shown(reference) == _shown(langchain)
    assert [type(m) for m in reference["messages"]] == [
        HumanMessage,
        AIMessage,
        ToolMessage,
        AIMessage,
    ]
    assert reference["messages"][-1].content == "three"


def test_the_callers_messages_come_back_as_the_same_objects_with_an_id() -> None:
    graph, agent = _both(_app, ["hello"])
    for runnable in (graph, agent):
        mine = HumanMessage("hi")
        result = runnable.invoke({"messages": [mine]})
        assert result["messages"][0] is mine
        assert mine.id is not None  # add_messages gives it one, in place
        assert result["messages"][1].id is not None


def test_ainvoke_takes_and_returns_the_same_shapes() -> None:
    graph, agent = _both(_app, _script())
    langchain = asyncio.run(graph.ainvoke({"messages": [("user", "1+2?")]}))
    reference = asyncio.run(agent.ainvoke({"messages": [("user", "1+2?")]}))
    assert _shown(reference) == _shown(langchain)
    assert reference["messages"][-1].content == "three"


def test_config_thread_id_keeps_a_conversation_and_get_state_reads_it() -> None:
    graph, agent = _both(_app, ["one", "two", "three"], InMemorySaver())
    first, second = {"configurable": {"thread_id": "1"}}, {"configurable": {"thread_id": "2"}}
    results = []
    for runnable in (graph, agent):
        runnable.invoke({"messages": [("user", "a")]}, first)
        again = runnable.invoke({"messages": [HumanMessage("b")]}, config=first)
        other = runnable.invoke({"messages": [("user", "c")]}, second)
        saved = runnable.get_state(first).values
        results.append((again, other, saved))
    (lc_again, lc_other, lc_saved), (again, other, saved) = results
    assert [m.content for m in again["messages"]] == ["a", "one", "b", "two"]
    assert _shown(again) == _shown(lc_again)
    assert _shown(other) == _shown(lc_other)
    assert _shown(saved) == _shown(lc_saved)
    ids = [m.id for m in again["messages"]]
    assert len(set(ids)) == 4 and None not in ids  # a new turn's message never reuses an id


def test_get_state_of_an_unknown_thread_is_empty() -> None:
    agent = on_reference_engine(_app)(ScriptedChatModel(["x"]), InMemorySaver())
    assert agent.get_state({"configurable": {"thread_id": "nobody"}}).values == {}


class _Keys(AgentState[Any]):
    secret: NotRequired[Annotated[str, PrivateStateAttr]]
    hidden_out: NotRequired[Annotated[str, OmitFromOutput]]
    not_in: NotRequired[Annotated[str, OmitFromInput]]
    shown: NotRequired[str]
    seen: NotRequired[Annotated[list[str], operator.add]]


class _Writer(AgentMiddleware[_Keys, Any]):
    state_schema = _Keys

    def before_model(self, state: Any, runtime: Any) -> dict[str, Any]:
        seen = [f"{key}={state.get(key)}" for key in ("secret", "hidden_out", "not_in", "shown")]
        return {"secret": "s", "hidden_out": "h", "not_in": "n", "shown": "v", "seen": seen}


def _keyed_app(model: Any) -> Any:
    return langchain_create_agent(model, [], middleware=[_Writer()])


def test_private_and_omitted_keys_are_left_out_as_langchain_leaves_them_out() -> None:
    graph, agent = _both(_keyed_app, ["ok"])
    given = {
        "messages": [("user", "hi")],
        "secret": "from caller",
        "hidden_out": "from caller",
        "not_in": "from caller",
        "shown": "from caller",
        "unknown": "dropped",
    }
    langchain, reference = graph.invoke(dict(given)), agent.invoke(dict(given))
    assert sorted(reference) == sorted(langchain) == ["messages", "not_in", "seen", "shown"]
    assert reference["seen"] == langchain["seen"]
    assert reference["seen"] == [
        "secret=None",
        "hidden_out=from caller",
        "not_in=None",
        "shown=from caller",
    ]
    assert _shown(reference) == _shown(langchain)


def test_output_keys_picks_keys_as_langgraph_does() -> None:
    graph, agent = _both(_keyed_app, ["ok", "ok"])
    for runnable in (graph, agent):
        one = runnable.invoke({"messages": [("user", "hi")]}, output_keys="shown")
        some = runnable.invoke({"messages": [("user", "hi")]}, output_keys=["shown", "seen"])
        assert one == "v"
        assert sorted(some) == ["seen", "shown"]


def test_run_still_returns_hookprofs_run_result() -> None:
    agent = on_reference_engine(_app)(ScriptedChatModel(_script() + _script()))
    result = agent.run({"messages": [("user", "1+2?")]})
    assert isinstance(result, RunResult)
    assert result.text == "three"
    assert len(result.final_requests) == 2
    result = asyncio.run(agent.arun({"messages": [("user", "1+2?")]}))
    assert result.text == "three"


def test_with_config_keeps_its_settings_and_its_class() -> None:
    agent = on_reference_engine(_app)(ScriptedChatModel(["one", "two"]), InMemorySaver())
    bound = agent.with_config({"configurable": {"thread_id": "t"}}, tags=["a"])
    assert isinstance(bound, LangChainShapedAgent)
    assert bound.config == {"configurable": {"thread_id": "t"}, "tags": ["a"]}
    assert agent.config == {}
    bound.invoke({"messages": [("user", "x")]})
    second = bound.invoke({"messages": [("user", "y")]}, {"tags": ["b"]})
    assert [m.content for m in second["messages"]] == ["x", "one", "y", "two"]
    copy = bound.with_checkpointer(InMemorySaver())
    assert isinstance(copy, LangChainShapedAgent)
    assert copy.config == bound.config


@pytest.mark.parametrize(
    ("option", "value"),
    [("interrupt_before", ["tools"]), ("stream_mode", "updates"), ("version", "v2")],
)
def test_an_option_the_engine_cannot_honour_is_refused_by_name(option: str, value: Any) -> None:
    agent = on_reference_engine(_app)(ScriptedChatModel(["x"]))
    with pytest.raises(UsageError, match=option):
        agent.invoke({"messages": [("user", "hi")]}, **{option: value})


def test_options_that_do_not_change_a_run_are_accepted() -> None:
    agent = on_reference_engine(_app)(ScriptedChatModel(["x"]))
    result = agent.invoke(
        {"messages": [("user", "hi")]},
        {"recursion_limit": 50, "metadata": {"k": 1}, "run_name": "r"},
        durability="sync",
        stream_mode="values",
    )
    assert result["messages"][-1].content == "x"


def test_bad_input_and_bad_config_are_clear_errors() -> None:
    agent = on_reference_engine(_app)(ScriptedChatModel(["x"]))
    with pytest.raises(UsageError, match="input state"):
        agent.invoke("hello")
    with pytest.raises(UsageError, match="RunnableConfig"):
        agent.invoke({"messages": [("user", "hi")]}, "thread-1")
