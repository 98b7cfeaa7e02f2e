"""An agent invoked from inside another agent's tool (a subagent) on the reference engine
against LangChain: it starts from the tool's run config as LangGraph's ``ensure_config`` makes
it (the parent's tags, metadata and callbacks under its own bound config) and runs with the
parent's context and store when it is given none."""

from __future__ import annotations

import asyncio
from typing import Any
from uuid import UUID

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.tools import ToolRuntime
from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langgraph.store.memory import InMemoryStore

from hookproof.adapters.langchain import ScriptedChatModel, on_reference_engine
from hookproof.models import call

_SEEN: list[ToolRuntime] = []


@tool
def look(runtime: ToolRuntime) -> str:
    """Note what the tool is given."""
    _SEEN.append(runtime)
    return "looked"


def _build(inner_config: dict[str, Any] | None = None, **outer_options: Any) -> Any:
    """An outer agent whose tool invokes an inner agent (bound to ``inner_config``) that
    calls ``look``; both built with LangChain's ``create_agent`` (on either engine)."""
    inner = langchain_create_agent(
        ScriptedChatModel([call("look", {}, id="c2"), "inner done"]), [look], name="inner"
    ).with_config(inner_config or {})

    @tool
    def delegate(question: str) -> str:
        """Ask the inner agent."""
        answer = inner.invoke({"messages": [HumanMessage(question)]})
        return str(answer["messages"][-1].text)

    outer = ScriptedChatModel([call("delegate", {"question": "why"}, id="c1"), "outer done"])
    return langchain_create_agent(outer, [delegate], name="outer", **outer_options)


def _inner_runtime(build: Any, *args: Any, **kwargs: Any) -> ToolRuntime:
    _SEEN.clear()
    build().invoke({"messages": [HumanMessage("hello")]}, *args, **kwargs)
    assert len(_SEEN) == 1
    return _SEEN[0]


def _on_both(build: Any, *args: Any, **kwargs: Any) -> tuple[ToolRuntime, ToolRuntime]:
    return _inner_runtime(build, *args, **kwargs), _inner_runtime(
        on_reference_engine(build), *args, **kwargs
    )


def test_a_subagent_runs_with_the_parents_tags_and_metadata_under_its_own_bound_config() -> None:
    def build() -> Any:
        return _build({"recursion_limit": 77, "metadata": {"lc_agent_name": "helper"}})

    config = {"tags": ["session"], "metadata": {"customer": "c-1", "lc_agent_name": "caller"}}
    for runtime in _on_both(build, config):
        assert runtime.config["tags"] == ["session"]
        assert runtime.config["recursion_limit"] == 77
        assert runtime.config["metadata"]["customer"] == "c-1"
        assert runtime.config["metadata"]["lc_agent_name"] == "helper"  # its own binding wins


def test_a_subagent_without_bound_config_keeps_its_graphs_defaults_over_the_parents() -> None:
    config = {"recursion_limit": 40, "configurable": {"user": "u-1"}}
    langchain, reference = _on_both(_build, config)
    assert reference.config["recursion_limit"] == langchain.config["recursion_limit"]
    assert reference.config["metadata"]["lc_agent_name"] == "inner"
    assert reference.config["configurable"]["user"] == "u-1"
    assert langchain.config["configurable"]["user"] == "u-1"


def test_a_subagent_given_no_context_runs_with_the_parents() -> None:
    for runtime in _on_both(_build, context={"user_id": "u-7"}):
        assert runtime.context == {"user_id": "u-7"}


def test_a_subagent_given_no_store_runs_with_the_parents() -> None:
    store = InMemoryStore()
    langchain = _inner_runtime(lambda: _build(store=store))
    reference = _inner_runtime(on_reference_engine(lambda: _build(store=store)))
    assert langchain.store is store
    assert reference.store is store


# -- the graph's own chain run, for the run config's callbacks --------------------------------


class _Runs(BaseCallbackHandler):
    """Every chain, chat model and tool run a handler is told of, with its parent."""

    def __init__(self) -> None:
        self.names: dict[UUID, str] = {}
        self.parents: dict[UUID, UUID | None] = {}
        self.ends: dict[UUID, Any] = {}
        self.errors: dict[UUID, BaseException] = {}

    def _start(self, name: str, run_id: UUID, parent_run_id: UUID | None) -> None:
        self.names[run_id], self.parents[run_id] = name, parent_run_id

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self._start(kwargs["name"], kwargs["run_id"], kwargs.get("parent_run_id"))

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self._start("chat model", kwargs["run_id"], kwargs.get("parent_run_id"))

    def on_tool_start(self, serialized: Any, input_str: Any, **kwargs: Any) -> None:
        name = kwargs.get("name") or serialized["name"]
        self._start(f"tool {name}", kwargs["run_id"], kwargs.get("parent_run_id"))

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        self.ends[kwargs["run_id"]] = outputs

    def on_chain_error(self, error: BaseException, **kwargs: Any) -> None:
        self.errors[kwargs["run_id"]] = error

    def named(self, name: str) -> list[UUID]:
        return [run for run, found in self.names.items() if found == name]

    def ancestors(self, run: UUID) -> list[str]:
        found: list[str] = []
        parent = self.parents[run]
        while parent is not None:
            found.append(self.names.get(parent, "?"))
            parent = self.parents.get(parent)
        return found


def _runs_of(agent: Any, config: dict[str, Any] | None = None) -> _Runs:
    runs = _Runs()
    agent.invoke({"messages": [HumanMessage("hello")]}, {**(config or {}), "callbacks": [runs]})
    return runs


def test_a_run_with_callbacks_is_one_chain_run_named_as_the_agent_around_what_it_runs() -> None:
    for agent in (_build(), on_reference_engine(_build)()):
        runs = _runs_of(agent)
        [graph] = runs.named("outer")
        assert runs.parents[graph] is None
        assert [m.text for m in runs.ends[graph]["messages"]][-1] == "outer done"
        for model_run in runs.named("chat model"):
            assert "outer" in runs.ancestors(model_run)


def test_the_run_name_in_the_config_names_the_graphs_run() -> None:
    for agent in (_build(), on_reference_engine(_build)()):
        runs = _runs_of(agent, {"run_name": "nightly"})
        assert len(runs.named("nightly")) == 1
        assert runs.named("outer") == []


def test_a_subagents_chain_run_is_a_child_of_the_tool_that_invoked_it() -> None:
    for agent in (_build(), on_reference_engine(_build)()):
        runs = _runs_of(agent)
        [inner] = runs.named("inner")
        assert runs.ancestors(inner)[0] == "tool delegate"
        assert runs.ancestors(inner)[-1] == "outer"
        [look_run] = runs.named("tool look")
        assert "inner" in runs.ancestors(look_run)


def test_a_failing_run_ends_its_chain_run_with_the_error() -> None:
    def build() -> Any:
        return langchain_create_agent(ScriptedChatModel([]), [], name="empty")

    for agent in (build(), on_reference_engine(build)()):
        runs = _Runs()
        with pytest.raises(Exception):  # noqa: B017,PT011 - each engine's own "script ran out"
            agent.invoke({"messages": [HumanMessage("hello")]}, {"callbacks": [runs]})
        [graph] = runs.named("empty")
        assert graph in runs.errors


def test_a_stream_with_callbacks_is_one_chain_run_too_sync_and_async() -> None:
    async def drained(agent: Any, config: Any) -> None:
        async for _chunk in agent.astream({"messages": [HumanMessage("hello")]}, config):
            pass

    for build in (_build, on_reference_engine(_build)):
        streamed, astreamed = _Runs(), _Runs()
        list(build().stream({"messages": [HumanMessage("hello")]}, {"callbacks": [streamed]}))
        asyncio.run(drained(build(), {"callbacks": [astreamed]}))
        for runs in (streamed, astreamed):
            [graph] = runs.named("outer")
            assert runs.parents[graph] is None
            assert graph in runs.ends


def test_an_async_handler_sees_the_graphs_run_on_the_runs_event_loop() -> None:
    class OnTheLoop(AsyncCallbackHandler):
        def __init__(self) -> None:
            self.starts: list[tuple[str, bool]] = []

        async def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
            self.starts.append((kwargs["name"], asyncio.get_running_loop() is loops[-1]))

    async def invoked(agent: Any, handler: OnTheLoop) -> None:
        loops.append(asyncio.get_running_loop())
        await agent.ainvoke({"messages": [HumanMessage("hello")]}, {"callbacks": [handler]})

    loops: list[asyncio.AbstractEventLoop] = []
    for agent in (_build(), on_reference_engine(_build)()):
        handler = OnTheLoop()
        asyncio.run(invoked(agent, handler))
        assert ("outer", True) in handler.starts
