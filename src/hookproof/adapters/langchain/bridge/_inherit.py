"""What a LangChain-shaped run started inside another run's node inherits from that node.

A graph invoked from inside a LangGraph node (a subagent that a tool invokes, a graph a
``RunnableLambda`` calls) starts from the node's run config, which LangChain keeps in its
runnable-config context variable: LangGraph's ``ensure_config`` seeds the graph's config from
it and merges the graph's bound config and the call's config over it key by key (tags joined,
metadata and ``configurable`` merged, callbacks combined, the newest ``recursion_limit``). The
graph's runtime merges over the node's, so a call without a ``context`` (or store) runs with
the node's. Outside any node nothing is inherited.

The thread stays the call's own: a run nested in another run's node keeps its place in the
outer run (the engine nests it), as LangGraph keeps a subgraph's checkpoints in its parent's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.runnables.config import var_child_runnable_config
from langgraph._internal._config import ensure_config as langgraph_ensure_config
from langgraph._internal._constants import CONFIG_KEY_RUNTIME

__all__ = ["inherited_context", "inherited_store", "nested_config"]


def nested_config(bound: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any] | None:
    """The run config of a call made inside a node: ``config`` over the agent's ``bound``
    config, both over the node's config; None outside any node."""
    if not var_child_runnable_config.get():
        return None
    ensured = langgraph_ensure_config(dict(bound), dict(config))  # type: ignore[arg-type]
    merged: dict[str, Any] = dict(ensured)
    merged["metadata"] = dict(merged.get("metadata") or {})
    return merged


def _node_runtime(config: Mapping[str, Any]) -> Any:
    configurable = config.get("configurable") or {}
    return configurable.get(CONFIG_KEY_RUNTIME) if isinstance(configurable, Mapping) else None


def inherited_context(config: Mapping[str, Any], context: Any) -> Any:
    """The call's ``context``, or (none given) that of the node the call is made in."""
    return context or getattr(_node_runtime(config), "context", None) or context


def inherited_store(config: Mapping[str, Any], store: Any) -> Any:
    """The agent's store, or (none given) that of the node the call is made in."""
    return store or getattr(_node_runtime(config), "store", None) or store
