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
from langchain.agents.middleware import AgentMiddleware, AgentState, omit_payload
from langchain.agents.middleware.types import OmitFromInput, OmitFromOutput, PrivateStateAttr
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langchain_core.tracers import BaseTracer, Run
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphRecursionError
from langgraph.errors import InvalidUpdateError as LangGraphInvalidUpdateError
from langgraph.types import Command, TracePolicy
from langgraph.types import Interrupt as LangGraphInterrupt

from hookproof.adapters.langchain import (
    LangChainShapedAgent,
    ScriptedChatModel,
    on_reference_engine,
)
from hookproof.errors import InvalidUpdateError, UsageError
from hookproof.models import call
from hookproof.runtime import Agent, RunResult
from hookproof.runtime import interrupt as hookproof_interrupt


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
    assert bound.config == {**agent.config, "configurable": {"thread_id": "t"}, "tags": ["a"]}
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


def test_the_agent_config_is_the_one_create_agent_binds() -> None:
    def named(model: Any) -> Any:
        return langchain_create_agent(model, [], name="helper")

    graph, agent = _both(named, ["x"])
    assert agent.config == {key: value for key, value in graph.config.items() if value != {}}
    assert agent.config["recursion_limit"] == 9_999
    assert agent.config["metadata"]["lc_agent_name"] == "helper"


@pytest.mark.parametrize("name", ["helper", None])
def test_the_agents_name_is_set_on_its_ai_messages_as_langchain_sets_it(name: Any) -> None:
    def named(model: Any) -> Any:
        return langchain_create_agent(model, [add], name=name)

    graph, agent = _both(named, _script())
    langchain = graph.invoke({"messages": [("user", "1+2?")]})
    reference = agent.invoke({"messages": [("user", "1+2?")]})
    assert [m.name for m in reference["messages"]] == [m.name for m in langchain["messages"]]
    assert [m.name for m in reference["messages"]] == [None, name, "add", name]
    assert _shown(reference) == _shown(langchain)


class _Marked(AgentState[Any]):
    mark: NotRequired[str]


@tool
def marks(value: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Write the mark."""
    done = ToolMessage("marked", tool_call_id=tool_call_id)
    return Command(update={"mark": value, "messages": [done]})


def _marking_app(model: Any) -> Any:
    return langchain_create_agent(model, [marks], state_schema=_Marked)


def test_two_writes_of_a_key_without_reducer_raise_langgraphs_error_type() -> None:
    script = [[call("marks", {"value": "a"}), call("marks", {"value": "b"})], "done"]
    graph, agent = _both(_marking_app, script)
    with pytest.raises(LangGraphInvalidUpdateError, match="At key 'mark'"):
        graph.invoke({"messages": [("user", "mark")]})
    with pytest.raises(LangGraphInvalidUpdateError, match="At key 'mark'") as raised:
        agent.invoke({"messages": [("user", "mark")]})
    assert isinstance(raised.value, InvalidUpdateError)  # hookproof's, with its explanation
    assert "written twice in one step" in str(raised.value)
    again = on_reference_engine(_marking_app)(ScriptedChatModel(script))
    with pytest.raises(LangGraphInvalidUpdateError, match="At key 'mark'"):
        asyncio.run(again.ainvoke({"messages": [("user", "mark")]}))


class _Jumps(AgentMiddleware):
    def before_model(self, state: Any, runtime: Any) -> None:
        return None


def test_get_graph_draws_the_graph_langchain_builds_from_the_same_arguments() -> None:
    def drawn(model: Any) -> Any:
        return langchain_create_agent(model, [add], middleware=[_Jumps()])

    graph, agent = _both(drawn, ["x"])
    reference = agent.get_graph().draw_mermaid()
    assert reference == graph.get_graph().draw_mermaid()
    assert "_Jumps.before_model" in reference


class _Inputs(BaseTracer):
    """A tracer keeping each chain run's recorded input and output by run name."""

    def __init__(self) -> None:
        super().__init__()
        self.inputs: dict[str, Any] = {}
        self.outputs: dict[str, Any] = {}
        self.starts: list[str] = []

    def _persist_run(self, run: Run) -> None:
        pass

    def _on_chain_start(self, run: Run) -> None:
        self.starts.append(run.name)
        self.inputs.setdefault(run.name, run.inputs)

    def _on_chain_end(self, run: Run) -> None:
        self.outputs.setdefault(run.name, run.outputs)


class _Counts(AgentMiddleware):
    def before_model(self, state: Any, runtime: Any) -> dict[str, Any]:
        return {"messages": [HumanMessage("noted", id="noted")]}


class _Private(AgentMiddleware):
    trace_policy = TracePolicy(process_inputs=omit_payload)

    def before_model(self, state: Any, runtime: Any) -> None:
        return None

    async def abefore_model(self, state: Any, runtime: Any) -> None:
        return None


def _traced(build: Any, run_async: bool) -> _Inputs:
    tracer = _Inputs()
    config: Any = {"callbacks": [tracer]}
    if run_async:
        asyncio.run(build.ainvoke({"messages": [("user", "hi")]}, config))
    else:
        build.invoke({"messages": [("user", "hi")]}, config)
    return tracer


@pytest.mark.parametrize("run_async", [False, True])
def test_node_hooks_are_traced_for_the_runs_callbacks_as_langgraph_traces_them(
    run_async: bool,
) -> None:
    def app(model: Any) -> Any:
        return langchain_create_agent(model, [], middleware=[_Counts(), _Private()])

    graph, agent = _both(app, ["ok"])
    langchain, reference = _traced(graph, run_async), _traced(agent, run_async)
    for tracer in (langchain, reference):
        seen = tracer.inputs["_Counts.before_model"]
        assert [m.content for m in seen["messages"]] == ["hi"]
        assert tracer.inputs["_Private.before_model"] == {}  # the policy's omit_payload
        noted = tracer.outputs["_Counts.before_model"]["messages"]
        assert [m.content for m in noted] == ["noted"]


def test_only_the_run_given_the_callbacks_is_traced() -> None:
    tracer = _Inputs()
    build = on_reference_engine(
        lambda model: langchain_create_agent(model, [], middleware=[_Counts()])
    )
    agent = build(ScriptedChatModel(["ok", "ok"]))
    agent.invoke({"messages": [("user", "traced")]}, {"callbacks": [tracer]})
    agent.invoke({"messages": [("user", "not traced")]})
    assert tracer.starts == ["LangGraph", "_Counts.before_model"]  # the graph's run, its hook
    assert [m.content for m in tracer.inputs["_Counts.before_model"]["messages"]] == ["traced"]


@tool
def approved(text: str) -> str:
    """Ask a human before answering."""
    answer = hookproof_interrupt({"ask": text})
    return f"{text}: {answer}"


def _approval_app(model: Any) -> Any:
    return langchain_create_agent(model, [approved], checkpointer=InMemorySaver())


def test_a_paused_run_returns_langgraphs_interrupt_key_and_resumes_on_its_command() -> None:
    script = [call("approved", {"text": "ship"}), "shipped"]
    agent = on_reference_engine(_approval_app)(ScriptedChatModel(script))
    config = {"configurable": {"thread_id": "review"}}
    paused = agent.invoke({"messages": [("user", "ship it")]}, config)
    [pending] = paused["__interrupt__"]
    assert isinstance(pending, LangGraphInterrupt)
    assert pending.value == {"ask": "ship"}
    assert pending.id and pending.id == agent.get_state(config).interrupts[0].id
    assert [type(m) for m in paused["messages"]] == [HumanMessage, AIMessage]
    done = agent.invoke(Command(resume="yes"), config)
    assert "__interrupt__" not in done
    assert [m.content for m in done["messages"]][-2:] == ["ship: yes", "shipped"]
    assert agent.get_state(config).interrupts == ()


def test_a_resume_without_a_thread_is_a_clear_error() -> None:
    agent = on_reference_engine(_approval_app)(ScriptedChatModel(["x"]))
    with pytest.raises(UsageError, match="thread_id"):
        agent.invoke(Command(resume="yes"))
    with pytest.raises(UsageError, match="resume"):
        agent.invoke(Command(goto="model"), {"configurable": {"thread_id": "t"}})


def test_a_recursion_limit_stops_a_looping_run_with_langgraphs_error() -> None:
    script = [call("add", {"a": i, "b": 1}) for i in range(10)]
    graph, agent = _both(_app, script)
    with pytest.raises(GraphRecursionError):
        graph.invoke({"messages": [("user", "count")]}, {"recursion_limit": 6})
    with pytest.raises(GraphRecursionError, match="Recursion limit of 6 reached"):
        agent.invoke({"messages": [("user", "count")]}, {"recursion_limit": 6})


def _raised(call: Any) -> tuple[type[BaseException], str]:
    """What ``call`` raised, by type and words (a call that returns fails the test)."""
    try:
        call()
    except Exception as error:  # noqa: BLE001 - compared whole by the caller
        return type(error), str(error)
    pytest.fail("the call returned instead of raising")


@pytest.mark.parametrize("limit", [0, -3])
def test_a_recursion_limit_below_one_is_refused_as_langgraph_refuses_it(limit: int) -> None:
    on_langchain, on_reference = _both(_app, ["x"])
    run = {"messages": [("user", "hi")]}
    expected = _raised(lambda: on_langchain.invoke(run, {"recursion_limit": limit}))
    assert _raised(lambda: on_reference.invoke(run, {"recursion_limit": limit})) == expected


def test_a_recursion_limit_that_is_not_a_number_is_a_type_error_on_both() -> None:
    on_langchain, on_reference = _both(_app, ["x"])
    run = {"messages": [("user", "hi")]}
    assert _raised(lambda: on_langchain.invoke(run, {"recursion_limit": "a"}))[0] is TypeError
    kind, said = _raised(lambda: on_reference.invoke(run, {"recursion_limit": "a"}))
    assert kind is TypeError and "recursion_limit must be a number" in said


def test_get_state_without_a_checkpointer_is_refused_as_langgraph_refuses_it() -> None:
    on_langchain, on_reference = _both(_app, ["x"])
    config = {"configurable": {"thread_id": "1"}}
    expected = _raised(lambda: on_langchain.get_state(config))
    assert expected == (ValueError, "No checkpointer set")
    assert _raised(lambda: on_reference.get_state(config)) == expected


def test_a_single_message_that_is_not_one_is_named_without_an_index() -> None:
    agent = on_reference_engine(_app)(ScriptedChatModel(["x"]))
    with pytest.raises(UsageError, match=r"input\['messages'\] is a int \(5\)"):
        agent.invoke({"messages": 5})
