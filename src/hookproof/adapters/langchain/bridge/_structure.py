"""A compiled ``create_agent`` graph's structure, for an agent the reference engine runs.

Code written for LangChain reads the compiled graph it built: ``agent.nodes["tools"]``'s
tools, ``"files" in agent.channels``, ``agent.get_input_jsonschema()``. The reference engine
runs no graph, so these are answered by the graph LangChain's own ``create_agent`` builds from
the same arguments, built on the first such read and kept. Structure comes from LangChain;
runs come from the engine: the agent's ``invoke``/``stream`` never run that graph, but
invoking what a structural read returns (a node, ``builder.compile()``) runs LangChain.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, ClassVar

from hookproof.errors import UsageError

__all__ = ["STRUCTURAL_NAMES", "GraphStructure", "LazyGraph"]

# What the agent answers from LangChain's compiled graph (attributes and methods of LangGraph's
# CompiledStateGraph that describe it and do not run it).
STRUCTURAL_NAMES = (
    "nodes",
    "channels",
    "stream_channels",
    "stream_channels_list",
    "output_channels",
    "input_channels",
    "stream_mode",
    "trigger_to_nodes",
    "builder",
    "config_specs",
    "InputType",
    "OutputType",
    "get_input_schema",
    "get_output_schema",
    "get_input_jsonschema",
    "get_output_jsonschema",
    "get_context_jsonschema",
    "get_subgraphs",
)


class LazyGraph:
    """LangChain's compiled graph of an agent's arguments, built on first use and kept (one
    per built agent: its ``with_config`` copies share it)."""

    def __init__(self, build: Callable[[], Any] | None) -> None:
        self._build = build
        self._graph: Any = None
        self._lock = threading.Lock()

    def get(self) -> Any:
        if self._build is None:
            raise UsageError(
                "hookproof: this agent was not built from create_agent's arguments, so there "
                "is no LangChain graph whose structure (nodes, channels, schemas) it can show. "
                "Build it with on_reference_engine(factory)."
            )
        with self._lock:
            if self._graph is None:
                self._graph = self._build()
            return self._graph


def _read_from_graph(name: str) -> property:
    def read(agent: GraphStructure) -> Any:
        return getattr(agent.langchain_graph(), name)

    return property(read, doc=f"LangChain's compiled graph's ``{name}`` (structure only).")


class GraphStructure:
    """The structural reads of a compiled ``create_agent`` graph (``STRUCTURAL_NAMES``),
    answered by LangChain's graph of the same arguments (``langchain_graph``)."""

    STRUCTURAL_NAMES: ClassVar[tuple[str, ...]] = STRUCTURAL_NAMES
    _lazy_graph: LazyGraph = LazyGraph(None)

    def langchain_graph(self) -> Any:
        """The graph LangChain's ``create_agent`` builds from this agent's arguments: read its
        structure; invoking it (or a node of it) runs LangChain, not the reference engine."""
        return self._lazy_graph.get()

    nodes = _read_from_graph("nodes")
    channels = _read_from_graph("channels")
    stream_channels = _read_from_graph("stream_channels")
    stream_channels_list = _read_from_graph("stream_channels_list")
    output_channels = _read_from_graph("output_channels")
    input_channels = _read_from_graph("input_channels")
    stream_mode = _read_from_graph("stream_mode")
    trigger_to_nodes = _read_from_graph("trigger_to_nodes")
    builder = _read_from_graph("builder")
    config_specs = _read_from_graph("config_specs")
    InputType = _read_from_graph("InputType")
    OutputType = _read_from_graph("OutputType")

    def get_input_schema(self, config: Any = None) -> Any:
        return self.langchain_graph().get_input_schema(config)

    def get_output_schema(self, config: Any = None) -> Any:
        return self.langchain_graph().get_output_schema(config)

    def get_input_jsonschema(self, config: Any = None) -> dict[str, Any]:
        schema: dict[str, Any] = self.langchain_graph().get_input_jsonschema(config)
        return schema

    def get_output_jsonschema(self, config: Any = None) -> dict[str, Any]:
        schema: dict[str, Any] = self.langchain_graph().get_output_jsonschema(config)
        return schema

    def get_context_jsonschema(self) -> dict[str, Any] | None:
        schema: dict[str, Any] | None = self.langchain_graph().get_context_jsonschema()
        return schema

    def get_subgraphs(self, *, namespace: str | None = None, recurse: bool = False) -> Any:
        return self.langchain_graph().get_subgraphs(namespace=namespace, recurse=recurse)
