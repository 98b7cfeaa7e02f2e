"""Streaming on the reference engine against LangChain: each case streams the same build on
LangChain's ``create_agent`` and on ``on_reference_engine`` and compares the chunks in order.

Normalised, and only these: message ids (LangGraph makes uuids), the uuid of each task in a
namespace or checkpoint namespace (``tools:<uuid>`` is compared as ``tools``), and of the run
metadata only the keys LangGraph documents for a chunk's origin (node, step, triggers, path,
agent name, integration, thread); everything else is compared as it is.
"""

from __future__ import annotations

import asyncio
import re
import warnings
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain.tools import ToolRuntime
from langchain_core._api.beta_decorator import LangChainBetaWarning
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.types import Command, Interrupt

from hookproof.adapters.langchain import ScriptedChatModel, on_reference_engine
from hookproof.errors import UsageError
from hookproof.models import call
from hookproof.runtime import interrupt as hookproof_interrupt

# -- what the agents are built from ----------------------------------------------------------

_RUNS: list[str] = []


@tool
def echo(text: str) -> str:
    """Return the text."""
    _RUNS.append(text)
    get_stream_writer()({"echoing": text})
    return text


@tool
def shout(text: str, runtime: ToolRuntime) -> str:
    """Return the text in capitals, streaming its progress."""
    runtime.stream_writer({"shouting": text})
    runtime.emit_output_delta(text)
    runtime.emit_output_delta(text.upper())
    return text.upper()


class Counting(AgentMiddleware):  # type: ignore[type-arg]
    def before_model(self, state: Any, runtime: Any) -> None:
        runtime.stream_writer({"before_model": len(state["messages"])})

    def after_model(self, state: Any, runtime: Any) -> dict[str, Any]:
        return {"messages": []}


def _echo_script() -> ScriptedChatModel:
    return ScriptedChatModel([call("echo", {"text": "hi"}, id="c1"), "done"])


def _build(**options: Any) -> Any:
    return langchain_create_agent(tools=[echo], **{"model": _echo_script(), **options})


def _both(build: Callable[..., Any], **options: Any) -> tuple[Any, Any]:
    """The agent ``build`` makes on LangChain and on the reference engine."""
    return build(**options), on_reference_engine(build)(**options)


_INPUT = {"messages": [HumanMessage("hello", id="h1")]}


# -- normalising -----------------------------------------------------------------------------

_SHOWN_METADATA = (
    "langgraph_node",
    "langgraph_step",
    "langgraph_triggers",
    "langgraph_path",
    "lc_agent_name",
    "ls_integration",
    "thread_id",
)
_TASK = re.compile(r":[0-9a-f-]{36}")


def comparable(value: Any) -> Any:
    if isinstance(value, BaseMessage):
        calls = [(c["name"], c["args"], c["id"]) for c in getattr(value, "tool_calls", [])]
        shown = (value.type, value.content, calls, getattr(value, "tool_call_id", None))
        return (*shown, value.name)
    if isinstance(value, dict):
        if "langgraph_node" in value:
            return {key: comparable(value.get(key)) for key in _SHOWN_METADATA}
        return {key: comparable(item) for key, item in value.items() if key != "id"}
    if isinstance(value, list | tuple):
        return type(value)(comparable(item) for item in value)
    if isinstance(value, str):
        return _TASK.sub("", value)
    return value


def streamed(agent: Any, *args: Any, **kwargs: Any) -> list[Any]:
    return [comparable(chunk) for chunk in agent.stream(*args, **kwargs)]


def assert_same_stream(build: Callable[..., Any], *args: Any, **kwargs: Any) -> list[Any]:
    langchain, reference = _both(build)
    expected = streamed(langchain, *args, **kwargs)
    assert streamed(reference, *args, **kwargs) == expected
    return expected


# -- stream modes ----------------------------------------------------------------------------


def test_updates_are_streamed_by_default() -> None:
    chunks = assert_same_stream(_build, _INPUT)
    assert [next(iter(chunk)) for chunk in chunks] == ["model", "tools", "model"]


def test_values_are_the_state_after_each_step_that_wrote_it() -> None:
    chunks = assert_same_stream(_build, _INPUT, stream_mode="values")
    assert [len(chunk["messages"]) for chunk in chunks] == [1, 2, 3, 4]


def test_updates_name_the_nodes_as_langchain_does() -> None:
    def build() -> Any:
        return _build(middleware=[Counting()])

    chunks = assert_same_stream(build, _INPUT, stream_mode="updates")
    assert [next(iter(chunk)) for chunk in chunks] == [
        "Counting.before_model",
        "model",
        "Counting.after_model",
        "tools",
        "Counting.before_model",
        "model",
        "Counting.after_model",
    ]


def test_several_modes_give_mode_and_chunk_pairs_in_langgraphs_order() -> None:
    def build() -> Any:
        return _build(middleware=[Counting()])

    modes = ["values", "updates", "custom"]
    chunks = assert_same_stream(build, _INPUT, stream_mode=modes)
    assert ("custom", {"echoing": "hi"}) in chunks
    assert chunks[1] == ("custom", {"before_model": 1})


def test_custom_chunks_come_from_the_tool_runtime_and_get_stream_writer() -> None:
    def build() -> Any:
        return langchain_create_agent(
            ScriptedChatModel([call("shout", {"text": "a"}, id="c1"), "ok"]), [shout]
        )

    assert assert_same_stream(build, _INPUT, stream_mode="custom") == [{"shouting": "a"}]


def test_messages_stream_each_token_of_a_streaming_model_with_its_node() -> None:
    def build() -> Any:
        model = GenericFakeChatModel(messages=iter([AIMessage("three small words")]))
        return langchain_create_agent(model, [], name="teller")

    chunks = assert_same_stream(build, _INPUT, stream_mode="messages")
    assert [chunk[0][1] for chunk in chunks] == ["three", " ", "small", " ", "words"]
    assert {chunk[1]["langgraph_node"] for chunk in chunks} == {"model"}
    assert {chunk[1]["lc_agent_name"] for chunk in chunks} == {"teller"}


def test_messages_include_the_tools_answers() -> None:
    chunks = assert_same_stream(_build, _INPUT, stream_mode="messages")
    # the model streams (a streaming handler is attached): its answer, then the last chunk
    assert [(chunk[0][0], chunk[1]["langgraph_node"]) for chunk in chunks] == [
        ("AIMessageChunk", "model"),
        ("AIMessageChunk", "model"),
        ("tool", "tools"),
        ("AIMessageChunk", "model"),
        ("AIMessageChunk", "model"),
    ]


def test_version_2_gives_typed_parts() -> None:
    chunks = assert_same_stream(_build, _INPUT, stream_mode=["updates", "values"], version="v2")
    assert chunks[0] == {"type": "values", "ns": (), "data": chunks[0]["data"], "interrupts": ()}
    assert {chunk["type"] for chunk in chunks} == {"updates", "values"}


def test_a_nested_agent_streams_under_its_tools_namespace() -> None:
    def build() -> Any:
        inner = langchain_create_agent(ScriptedChatModel(["inner answer"]), [])

        @tool
        def ask_inner(question: str) -> str:
            """Ask the inner agent."""
            return str(inner.invoke({"messages": [HumanMessage(question)]})["messages"][-1].text)

        outer = ScriptedChatModel([call("ask_inner", {"question": "why"}, id="c1"), "ok"])
        return langchain_create_agent(outer, [ask_inner])

    chunks = assert_same_stream(build, _INPUT, stream_mode=["updates"], subgraphs=True)
    nested = [chunk for chunk in chunks if chunk[0]]
    assert nested == [(("tools",), "updates", {"model": {"messages": [nested_answer()]}})]


def nested_answer() -> Any:
    return ("ai", "inner answer", [], None, None)


def test_breaking_out_of_a_stream_stops_the_run_there() -> None:
    for agent in _both(_build):
        _RUNS.clear()
        for chunk in agent.stream(_INPUT, stream_mode="updates"):
            assert "model" in chunk
            break
        assert _RUNS == []  # the tool step never ran


def test_closing_a_stream_between_tokens_of_one_step_closes_it_cleanly() -> None:
    def build() -> Any:
        model = GenericFakeChatModel(messages=iter([AIMessage("three small words")]))
        return langchain_create_agent(model, [])

    for agent in _both(build):
        stream = agent.stream(_INPUT, stream_mode="messages")
        first, _metadata = next(stream)
        assert first.content == "three"  # more tokens of the same step wait unread
        stream.close()  # what breaking out of a for loop does; a closing generator must not yield
        with pytest.raises(StopIteration):
            next(stream)


def test_astream_gives_what_stream_gives() -> None:
    async def collected(agent: Any) -> list[Any]:
        return [comparable(c) async for c in agent.astream(_INPUT, stream_mode=["updates"])]

    langchain, reference = _both(_build)
    expected = asyncio.run(collected(langchain))
    assert asyncio.run(collected(reference)) == expected
    assert len(expected) == 3


def test_a_failing_tool_still_streams_what_came_before_the_error() -> None:
    @tool
    def broken() -> str:
        """Fail."""
        raise ValueError("broken tool")

    def build() -> Any:
        return langchain_create_agent(ScriptedChatModel([call("broken", id="c1"), "x"]), [broken])

    for agent in _both(build):
        seen: list[Any] = []
        with pytest.raises(ValueError, match="broken tool"):
            seen.extend(comparable(c) for c in agent.stream(_INPUT, stream_mode="updates"))
        assert [next(iter(chunk)) for chunk in seen] == ["model"]


# -- stream_events(version="v3") ---------------------------------------------------------------


def v3(agent: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():  # both warn once per process that v3 is experimental
        warnings.simplefilter("ignore", LangChainBetaWarning)
        return agent.stream_events(_INPUT, version="v3", **kwargs)


def test_stream_events_v3_projects_tool_calls_with_their_output_deltas() -> None:
    def build() -> Any:
        return langchain_create_agent(
            ScriptedChatModel([call("shout", {"text": "a"}, id="c1"), "ok"]), [shout]
        )

    for agent in _both(build):
        run = v3(agent)
        calls = [(tc.tool_name, list(tc.output_deltas), tc.completed) for tc in run.tool_calls]
        assert calls == [("shout", ["a", "A"], True)]
        assert run.output["messages"][-1].text == "ok"


def test_stream_events_v3_registers_the_agents_transformers_in_langchains_order() -> None:
    from langgraph.stream import StreamChannel, StreamTransformer

    class Marker(StreamTransformer):
        required_stream_modes = ()

        def init(self) -> dict[str, Any]:
            return {"marker": StreamChannel()}

        def process(self, event: Any) -> bool:
            return True

    def names(agent: Any) -> list[str]:
        run = v3(agent, transformers=[Marker])
        found = [type(item).__name__ for item in run._mux._transformers]
        list(run.tool_calls)
        return found

    langchain, reference = _both(_build)
    assert names(reference) == names(langchain)


# -- what the reference engine refuses ---------------------------------------------------------


def test_an_unknown_stream_mode_is_a_clear_error() -> None:
    agent = on_reference_engine(_build)()
    with pytest.raises(UsageError, match="stream_mode \\['checkpoints'\\]"):
        agent.stream(_INPUT, stream_mode="checkpoints")


def test_stream_events_other_than_v3_is_a_clear_error() -> None:
    agent = on_reference_engine(_build)()
    with pytest.raises(UsageError, match="version='v2'"):
        agent.stream_events(_INPUT, version="v2")


def test_stream_events_v3_refuses_stream_mode_as_langgraph_does() -> None:
    for agent in _both(_build):
        with pytest.raises(TypeError, match="stream_mode"):
            v3(agent, stream_mode="values")


def test_config_metadata_and_thread_reach_the_chunks_metadata() -> None:
    config: RunnableConfig = {"configurable": {"thread_id": "t-1"}}
    chunks = assert_same_stream(_build, _INPUT, config, stream_mode="messages")
    assert {chunk[1]["thread_id"] for chunk in chunks} == {"t-1"}


def test_astream_streams_the_tokens_of_an_async_model_call() -> None:
    def build() -> Any:
        model = GenericFakeChatModel(messages=iter([AIMessage("two words")]))
        return langchain_create_agent(model, [])

    async def collected(agent: Any) -> list[Any]:
        return [comparable(c) async for c in agent.astream(_INPUT, stream_mode="messages")]

    langchain, reference = _both(build)
    expected = asyncio.run(collected(langchain))
    assert asyncio.run(collected(reference)) == expected
    assert [chunk[0][1] for chunk in expected] == ["two", " ", "words"]


class _AskFirst(AgentMiddleware):  # type: ignore[type-arg]
    def after_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return {"messages": []} if hookproof_interrupt("ok?") == "yes" else None


def test_a_paused_stream_shows_the_interrupt_and_a_resumed_one_its_starting_state() -> None:
    # LangGraph's shape for a pause: an "__interrupt__" update, then the state with it; a
    # resumed stream starts with the state it resumes from (v2 parts carry `interrupts`)
    def build() -> Any:
        model = ScriptedChatModel(["hello"])
        return langchain_create_agent(
            model, [], middleware=[_AskFirst()], checkpointer=InMemorySaver()
        )

    agent = on_reference_engine(build)()
    config: RunnableConfig = {"configurable": {"thread_id": "t"}}
    paused = list(agent.stream(_INPUT, config, stream_mode=["updates", "values"]))
    (pending,) = paused[-2][1]["__interrupt__"]
    assert isinstance(pending, Interrupt)
    assert pending.value == "ok?"
    assert paused[-1] == ("values", {**paused[-3][1], "__interrupt__": (pending,)})
    modes = ["updates", "values"]
    resumed = list(agent.stream(Command(resume="yes"), config, stream_mode=modes, version="v2"))
    assert [part["type"] for part in resumed] == ["values", "updates", "values"]
    assert resumed[0]["data"] == paused[-3][1]
    assert resumed[1]["data"] == {"_AskFirst.after_model": {"messages": []}}
    assert all(part.get("interrupts", ()) == () for part in resumed)
