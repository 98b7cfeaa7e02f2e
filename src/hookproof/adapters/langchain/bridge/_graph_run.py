"""What one LangChain-shaped run carries to the bridged hooks and tools it runs.

A LangChain test calls ``agent.invoke(input, config, context=...)`` and expects, inside its
middleware and tools, what LangGraph gives them: the run's config (``get_config()``,
``ToolRuntime.config``), a stream writer, the store, ``interrupt()``. The reference engine
knows none of these; the agent built by ``on_reference_engine`` sets one ``GraphRun`` for the
duration of a run, and the bridge reads it where LangChain's objects are made.

A context variable carries it, so concurrent runs (threads, tasks) each see their own; the
engine copies the context into the workers that run tools.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "TOOLS_EXTRA",
    "GraphRun",
    "current_graph_run",
    "graph_run",
    "set_graph_run",
    "write_to_stream",
]

TOOLS_EXTRA = "tools"  # extras key: the agent's tools, which LangGraph's ToolRuntime.tools lists


def _ignore(_chunk: Any) -> None:
    """The stream writer of a run nobody streams: what is written goes nowhere."""


@dataclass
class GraphRun:
    """The LangGraph-side facts of one run; fields are added by the parts that need them."""

    config: dict[str, Any] = field(default_factory=dict)
    store: Any = None
    stream_writer: Callable[[Any], None] = _ignore
    extras: dict[str, Any] = field(default_factory=dict)
    # id(engine message) -> (engine message, the caller's LangChain message it was made from):
    # the chat model gets the caller's own objects, as on LangGraph.
    callers: dict[int, tuple[Any, Any]] = field(default_factory=dict)
    # The config LangGraph gives the task running now, while a stream runs the run (callbacks
    # with LangGraph's stream handlers, langgraph_* metadata, the task's checkpoint namespace):
    # a node's config is built on it, so streaming sees what the node's code calls.
    node_config: Mapping[str, Any] | None = None

    @property
    def configurable(self) -> dict[str, Any]:
        found = self.config.get("configurable")
        return found if isinstance(found, dict) else {}

    @property
    def thread_id(self) -> str | None:
        found = self.configurable.get("thread_id")
        return None if found is None else str(found)


_CURRENT: contextvars.ContextVar[GraphRun | None] = contextvars.ContextVar(
    "hookproof_graph_run", default=None
)


def current_graph_run() -> GraphRun | None:
    """The run in progress on this thread or task, or None outside a LangChain-shaped run."""
    return _CURRENT.get()


@contextlib.contextmanager
def graph_run(run: GraphRun) -> Iterator[GraphRun]:
    token = _CURRENT.set(run)
    try:
        yield run
    finally:
        _CURRENT.reset(token)


def set_graph_run(run: GraphRun) -> None:
    """Make ``run`` current for the rest of this context: for a context made for one run
    (a copied context that a stream runs its run in), dropped with it."""
    _CURRENT.set(run)


def write_to_stream(chunk: Any) -> None:
    """The stream writer bridged hooks and tools are given (``runtime.stream_writer``): it
    writes to the stream of the run in progress, if one streams ``custom`` chunks."""
    run = _CURRENT.get()
    if run is not None:
        run.stream_writer(chunk)
