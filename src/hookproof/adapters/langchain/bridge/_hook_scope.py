"""What a bridged hook runs in, entered as one context.

A LangChain hook on the reference engine runs inside its node's channels (``node_channels``),
its explanation of LangGraph's "outside of a runnable context" error (``explained``) and
LangGraph's node config (``langgraph_node``, which turns a GraphInterrupt leaving the hook
into the engine's InterruptRaised), in that order from the outside in. ``HookScope`` is those
three nested, with the same effects and the same exceptions, in a few calls instead of a
dozen: a bridged agent enters it around every hook it runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import TracebackType
from typing import Any, Literal

from langgraph.errors import GraphInterrupt
from langgraph.runtime import Runtime as LCRuntime

from hookproof.adapters.langchain.bridge._channels import (
    NodeChannels,
    close_channels,
    open_channels,
)
from hookproof.adapters.langchain.bridge._langgraph_context import (
    engine_interrupt,
    enter_node_config,
    leave_node_config,
)
from hookproof.adapters.langchain.bridge._tools import needs_graph

__all__ = ["HookScope"]


class HookScope:
    """``node_channels(state)``, ``explained(where)`` and ``langgraph_node(node, runtime)``,
    nested in that order; entering gives the channels."""

    __slots__ = ("_channels_token", "_config_token", "_node", "_runtime", "_state", "_where")

    def __init__(self, state: Mapping[str, Any], where: str, node: str, runtime: LCRuntime[Any]):
        self._state, self._where, self._node, self._runtime = state, where, node, runtime
        self._channels_token: Any = None
        self._config_token: Any = None

    def __enter__(self) -> NodeChannels:
        channels, self._channels_token = open_channels(self._state)
        try:
            entered = enter_node_config(self._node, self._runtime)
        except BaseException as error:
            close_channels(self._channels_token)
            explanation = needs_graph(error, self._where)
            if explanation is None:
                raise
            raise explanation from error
        self._config_token = None if entered is None else entered[1]
        return channels

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> Literal[False]:
        try:
            if self._config_token is not None:
                leave_node_config(self._config_token)
        finally:
            close_channels(self._channels_token)
        if error is None:
            return False
        if self._config_token is not None and isinstance(error, GraphInterrupt):
            converted = engine_interrupt(error)
            explanation = needs_graph(converted, self._where)
            if explanation is not None:
                raise explanation from converted
            raise converted from None
        explanation = needs_graph(error, self._where)
        if explanation is not None:
            raise explanation from error
        return False
