"""The agent ``on_reference_engine`` builds: LangChain's call shapes on the reference engine.

A compiled ``create_agent`` graph is called ``invoke(input, config, context=...)`` and answers
with its state dict: LangChain messages (the caller's own objects where LangGraph keeps
them), every state key the graph outputs, ``__interrupt__`` when the run paused. This agent
takes and returns the same, so a test written for LangChain runs on the reference engine
unchanged; ``run``/``arun`` still return hookproof's ``RunResult``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

from langchain_core.runnables import Runnable

from hookproof.adapters.langchain.bridge._graph_run import TOOLS_EXTRA, graph_run
from hookproof.adapters.langchain.bridge._stream_api import LangChainStreaming
from hookproof.adapters.langchain.bridge._stream_events import LangChainStreamEvents
from hookproof.adapters.langchain.bridge._structure import GraphStructure, LazyGraph
from hookproof.errors import InvalidUpdateError, ParentCommandError, UsageError
from hookproof.runtime import Agent

if TYPE_CHECKING:
    from hookproof.adapters.langchain.bridge._call import LangChainCall

__all__ = ["LangChainShapedAgent", "StateKeys", "merged_config"]


@dataclass(frozen=True)
class StateKeys:
    """What the agent's state schemas say about its keys, as LangChain reads them: every
    declared key, and those left out of the graph's input or its output."""

    declared: frozenset[str] = frozenset({"messages"})
    not_input: frozenset[str] = frozenset()
    not_output: frozenset[str] = frozenset()


@dataclass(frozen=True)
class _Settings:
    keys: StateKeys = field(default_factory=StateKeys)
    config: Mapping[str, Any] = field(default_factory=dict)
    store: Any = None  # create_agent(store=...): every run's hooks and tools see it


# A langchain_core Runnable as a compiled graph is (LangGraph adds it as a node, deepagents wraps
# it as a CompiledSubAgent); like the graph, it answers astream_events and name its own way.
class LangChainShapedAgent(  # type: ignore[misc]
    LangChainStreamEvents, LangChainStreaming, GraphStructure, Agent, Runnable[Any, Any]
):
    """A reference-engine agent that is called as a compiled ``create_agent`` graph is:
    ``invoke(input, config=None, *, context=None)`` returns LangChain's state dict.

    It is a ``hookproof.runtime.Agent``: ``run``/``arun`` return hookproof's ``RunResult``
    (the contract checks, snapshots and traces use them), and its other methods are the
    runtime agent's. It streams as the graph does (``stream``, ``astream``,
    ``stream_events(version="v3")``). It is a langchain_core ``Runnable``: a LangGraph graph
    can run it as a node, where a ``Command(graph=Command.PARENT)`` from its hooks or tools
    reaches that graph. Its structure (``nodes``, ``channels``, schemas: ``STRUCTURAL_NAMES``)
    is that of LangChain's graph of the same arguments (``langchain_graph()``).
    """

    _settings: _Settings = _Settings()

    @classmethod
    def of(
        cls,
        agent: Agent,
        keys: StateKeys = StateKeys(),
        name: str | None = None,
        *,
        drawing: Callable[[], Any] | None = None,
        store: Any = None,
    ) -> LangChainShapedAgent:
        """``agent``, called in LangChain's shapes (its state keys as ``keys`` says), with
        the config LangChain's ``create_agent`` binds to the graph it builds (named ``name``);
        ``drawing`` builds LangChain's graph of the same arguments, for its structure; its
        runs are given LangGraph's ``store``."""
        shaped = cls(
            agent._engine, middleware=agent.middleware, context_schema=agent.context_schema
        )
        shaped._settings = _Settings(keys=keys, config=_agent_config(name), store=store)
        shaped._lazy_graph = LazyGraph(drawing)
        return shaped

    @property
    def config(self) -> Mapping[str, Any]:
        """The run config ``with_config`` bound (merged into every call's ``config``)."""
        return self._settings.config

    def with_config(
        self, config: Mapping[str, Any] | None = None, **keys: Any
    ) -> LangChainShapedAgent:
        """The same agent with ``config`` (and ``keys``) merged into every run's config, as a
        LangChain runnable's ``with_config``; this agent is left as it is."""
        clone = self._with_engine(self._engine)
        bound = merged_config(self._settings.config, {**(config or {}), **keys})
        clone._settings = dataclasses.replace(self._settings, config=bound)
        return clone

    def invoke(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        context: Any = None,
        **options: Any,
    ) -> Any:
        """What a compiled ``create_agent`` graph's ``invoke`` takes and returns."""
        call = self._call(input, config, options)
        try:
            with graph_run(call.graph_run):
                result = self._run_listened(call, context)
        except InvalidUpdateError as error:
            _raise_as_langgraph(call, error)
        except ParentCommandError as error:
            _raise_to_parent(error, call)
        return call.output(result)

    async def ainvoke(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        context: Any = None,
        **options: Any,
    ) -> Any:
        """Like invoke, on the running event loop."""
        call = self._call(input, config, options)
        try:
            with graph_run(call.graph_run):
                result = await self._arun_listened(call, context)
        except InvalidUpdateError as error:
            _raise_as_langgraph(call, error)
        except ParentCommandError as error:
            _raise_to_parent(error, call)
        return call.output(result)

    def get_state(self, config: Mapping[str, Any]) -> Any:
        """The thread's saved state as LangGraph's ``StateSnapshot`` (``values``,
        ``interrupts``; ``next`` and ``tasks`` are empty, the engine has no graph nodes)."""
        from langgraph.types import StateSnapshot

        from hookproof.adapters.langchain.bridge._call import LangChainCall

        if self.checkpointer is None:
            raise ValueError("No checkpointer set")  # LangGraph's own words and type
        merged: Any = merged_config(self._settings.config, config)  # a RunnableConfig
        thread = LangChainCall.thread_of(merged)
        saved = None if thread is None else self.checkpointer.get(thread)
        if saved is None:
            return StateSnapshot({}, (), merged, None, None, None, (), ())
        call = LangChainCall(self._settings.keys, merged, self.checkpointer)
        values = call.output_values(saved.values)
        pending = call.interrupts(saved.interrupts, thread)
        return StateSnapshot(values, (), merged, None, None, None, (), tuple(pending))

    def get_graph(self, config: Mapping[str, Any] | None = None, *, xray: Any = False) -> Any:
        """The drawable graph LangChain's ``create_agent`` builds from the same arguments
        (``langchain_graph``; the reference engine runs no graph)."""
        return self.langchain_graph().get_graph(config, xray=xray)

    def _call(
        self, input: Any, config: Mapping[str, Any] | None, options: Mapping[str, Any]
    ) -> LangChainCall:
        # Loaded on the first call: it needs langgraph, which building the agent does not.
        from hookproof.adapters.langchain.bridge._call import (
            LangChainCall,
            refuse_unsupported_options,
        )
        from hookproof.adapters.langchain.bridge._inherit import inherited_store, nested_config

        if config is not None and not isinstance(config, Mapping):
            raise UsageError(
                f"hookproof: invoke() takes the run config as its second argument, a dict "
                f"(LangChain's RunnableConfig), got a {type(config).__name__}. Example: "
                'agent.invoke({"messages": [...]}, {"configurable": {"thread_id": "1"}}).'
            )
        output_keys = refuse_unsupported_options(options)
        explicit = merged_config(self._settings.config, config or {})
        _check_recursion_limit(explicit.get("recursion_limit"))
        merged = nested_config(self._settings.config, config or {}) or explicit
        extras = {TOOLS_EXTRA: self.tools}  # what LangGraph's ToolRuntime.tools lists
        call = LangChainCall(self._settings.keys, merged, self.checkpointer, extras, output_keys)
        call.thread_id = LangChainCall.thread_of(explicit)  # a nested run keeps no thread
        call.graph_run.store = inherited_store(merged, self._settings.store)
        call.prepare(input)
        return call


def _check_recursion_limit(limit: Any) -> None:
    """Refuse the step bounds LangGraph refuses: below 1, or not comparable with 1."""
    try:
        too_low = limit < 1
    except TypeError:
        raise TypeError(
            f"recursion_limit must be a number, got {type(limit).__name__} ({limit!r}) "
            "(hookproof: LangGraph fails comparing it with 1 the same way)"
        ) from None
    if too_low:
        raise ValueError("recursion_limit must be at least 1")


def _agent_config(name: str | None) -> dict[str, Any]:
    metadata = {"ls_integration": "langchain_create_agent"}
    if name:
        metadata["lc_agent_name"] = name
    return {"recursion_limit": LANGCHAIN_RECURSION_LIMIT, "metadata": metadata}


# The step bound create_agent binds to its graph; the reference engine does not count graph
# steps, and bounds a run by model calls instead (on_reference_engine's bound).
LANGCHAIN_RECURSION_LIMIT = 9_999


def _raise_as_langgraph(call: LangChainCall, error: Exception) -> NoReturn:
    translated = call.graph_error(error)
    if translated is error:
        raise error
    raise translated from error


def _raise_to_parent(error: ParentCommandError, call: LangChainCall) -> NoReturn:
    from hookproof.adapters.langchain.bridge._parent import parent_command

    addressed = parent_command(error, call)
    if addressed is None:
        raise error
    raise addressed from None


def merged_config(base: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` over ``base`` as LangChain merges run configs: ``configurable`` and
    ``metadata`` merged key by key, ``tags`` joined without repeats, ``callbacks`` lists
    joined, any other key replaced."""
    merged = dict(base)
    for key, value in config.items():
        known = merged.get(key)
        if key in ("configurable", "metadata") and isinstance(value, Mapping):
            merged[key] = {**(known or {}), **value}
        elif key == "tags" and value is not None:
            merged[key] = list(dict.fromkeys([*(known or ()), *value]))
        elif key == "callbacks" and isinstance(known, list) and isinstance(value, list):
            merged[key] = [*known, *value]
        else:
            merged[key] = value
    return merged
