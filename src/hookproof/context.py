"""What the runtime hands to hooks and tools: the run's context, state and call identity."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from hookproof.messages import ToolCall

__all__ = ["Runtime", "ToolRuntime"]

ContextT = TypeVar("ContextT")


@dataclass(frozen=True, slots=True, kw_only=True)
class Runtime(Generic[ContextT]):
    """Per-invocation data shared by every hook: ``context`` is None when none was given."""

    context: ContextT | None = None
    agent_name: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolRuntime(Generic[ContextT]):
    """Injected into a tool parameter annotated ``ToolRuntime``; never part of the schema."""

    context: ContextT | None = None
    state: Mapping[str, Any]
    tool_call_id: str | None = None
    tool_call: ToolCall | None = None

    def with_state(self, state: Mapping[str, Any]) -> ToolRuntime[ContextT]:
        """This runtime with another state (a tool-call layer replaced the request's)."""
        # Every field spelled out: a third of dataclasses.replace's cost on this hot path.
        return ToolRuntime(
            context=self.context,
            state=state,
            tool_call_id=self.tool_call_id,
            tool_call=self.tool_call,
        )
