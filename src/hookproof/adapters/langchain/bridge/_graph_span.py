"""The chain run LangGraph opens for a whole graph run, for the run config's callbacks.

A compiled graph's ``invoke``/``stream`` starts one chain run named by the config's
``run_name`` or the graph's name (a ``create_agent`` graph takes the agent's ``name``), with
the call's input; what runs inside it (nodes, the chat model, tools, an agent a tool invokes)
is its child, and it ends with the graph's output or its error. Callback handlers and
LangSmith tracers see a subagent's run so, under the tool that ran it.

Without callbacks in the config (and LangSmith tracing off) nothing is opened, and a run
costs one lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.runnables.config import (
    ensure_config,
    get_async_callback_manager_for_config,
    get_callback_manager_for_config,
)
from langsmith.utils import tracing_is_enabled

__all__ = [
    "DEFAULT_GRAPH_NAME",
    "AsyncGraphSpan",
    "GraphSpan",
    "aopen_graph_span",
    "open_graph_span",
]

DEFAULT_GRAPH_NAME = "LangGraph"  # a compiled graph's name when none is given


class GraphSpan:
    """One graph run (or none: every method does nothing); ``end`` or ``error`` closes it."""

    def __init__(self, run_manager: Any = None) -> None:
        self._run_manager: Any = run_manager

    def end(self, output: Callable[[], Any]) -> None:
        """Close the run with the graph's output (made only when a handler sees it)."""
        manager, self._run_manager = self._run_manager, None
        if manager is not None:
            manager.on_chain_end(output())

    def error(self, error: BaseException) -> None:
        manager, self._run_manager = self._run_manager, None
        if manager is not None:
            manager.on_chain_error(error)


class AsyncGraphSpan:
    """GraphSpan of an async run: its handlers are called on the run's event loop."""

    def __init__(self, run_manager: Any = None) -> None:
        self._run_manager: Any = run_manager

    async def end(self, output: Callable[[], Any]) -> None:
        manager, self._run_manager = self._run_manager, None
        if manager is not None:
            await manager.on_chain_end(output())

    async def error(self, error: BaseException) -> None:
        manager, self._run_manager = self._run_manager, None
        if manager is not None:
            await manager.on_chain_error(error)


def open_graph_span(config: dict[str, Any], input: Any, name: str | None) -> GraphSpan:
    """Start the graph's chain run for a call with run config ``config`` (whose callbacks
    then become the run's children) and ``input``; a span of nothing when no handler would
    see it."""
    if not _may_be_seen(config):
        return GraphSpan()
    manager = get_callback_manager_for_config(ensure_config(config))  # type: ignore[arg-type]
    if not manager.handlers:
        return GraphSpan()
    run_id = config.get("run_id")
    run_manager = manager.on_chain_start(
        None, _plain(input), name=_name(config, name), run_id=run_id
    )
    _hand_down(config, run_manager)
    return GraphSpan(run_manager)


async def aopen_graph_span(config: dict[str, Any], input: Any, name: str | None) -> AsyncGraphSpan:
    """Like open_graph_span, for a run on the event loop."""
    if not _may_be_seen(config):
        return AsyncGraphSpan()
    manager = get_async_callback_manager_for_config(ensure_config(config))  # type: ignore[arg-type]
    if not manager.handlers:
        return AsyncGraphSpan()
    run_id = config.get("run_id")
    run_manager = await manager.on_chain_start(
        None, _plain(input), name=_name(config, name), run_id=run_id
    )
    _hand_down(config, run_manager)
    return AsyncGraphSpan(run_manager)


def _may_be_seen(config: Mapping[str, Any]) -> bool:
    return bool(config.get("callbacks")) or bool(tracing_is_enabled())


def _name(config: Mapping[str, Any], name: str | None) -> str:
    return str(config.get("run_name") or name or DEFAULT_GRAPH_NAME)


def _hand_down(config: dict[str, Any], run_manager: Any) -> None:
    """As LangChain's patch_config does for a child: new callbacks, and the run's own name
    and id are not passed on to what runs inside it."""
    config["callbacks"] = run_manager.get_child()
    config.pop("run_name", None)
    config.pop("run_id", None)


def _plain(input: Any) -> Any:
    return dict(input) if isinstance(input, Mapping) else input
