"""A support agent in the Eino dialect: role-based tool filtering, an audit, an approval.

``RoleToolFilter`` reads the caller's role from the run's ctx (``ctx.with_value("role",
...)``) and keeps only that role's tools in ``state.tool_infos`` before every model call; an
unknown or missing role gets the guest's tools (fail closed). ``ToolAudit`` counts tool calls
in a run-local value and reports them after the run. ``refund`` asks a human first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hookproof.eino import (
    AgentEvent,
    BaseChatModelAgentMiddleware,
    ChatModelAgent,
    ChatModelAgentState,
    InMemoryCheckpointer,
    ModelContext,
    RunContext,
    ToolContext,
    get_run_local_value,
    interrupt,
    register_name,
    send_event,
    set_run_local_value,
)
from hookproof.tools import tool

__all__ = [
    "ROLE_TOOLS",
    "RoleToolFilter",
    "ToolAudit",
    "ToolCount",
    "build_eino_support_agent",
    "internal_lookup",
    "public_search",
    "refund",
]


@tool
def public_search(query: str) -> str:
    """Search the public help center."""
    return f"public results for {query!r}"


@tool
def internal_lookup(customer_id: str) -> str:
    """Look a customer up in the internal CRM."""
    return f"customer {customer_id}: plan=pro"


@tool
def refund(order_id: str) -> str:
    """Refund an order (a human approves first)."""
    decision = interrupt({"action": "refund", "order_id": order_id})
    return f"refund {order_id}: {decision}"


ROLE_TOOLS = {
    "guest": ("public_search",),
    "analyst": ("public_search", "internal_lookup"),
    "admin": ("public_search", "internal_lookup", "refund"),
}


class RoleToolFilter(BaseChatModelAgentMiddleware):
    """Shows the model only the caller's tools; an unknown role is treated as a guest."""

    def before_model_rewrite_state(
        self, ctx: RunContext, state: ChatModelAgentState, model_ctx: ModelContext
    ) -> tuple[RunContext, ChatModelAgentState]:
        allowed = ROLE_TOOLS.get(ctx.value("role"), ROLE_TOOLS["guest"])
        shown = tuple(info for info in state.tool_infos or () if info.name in allowed)
        return ctx, state.override(tool_infos=shown)

    def wrap_invokable_tool_call(
        self, ctx: RunContext, endpoint: Any, tool_ctx: ToolContext
    ) -> Any:
        allowed = ROLE_TOOLS.get(ctx.value("role"), ROLE_TOOLS["guest"])
        if tool_ctx.name in allowed:
            return endpoint

        def refused(ctx: RunContext, arguments: str) -> str:
            return f"tool {tool_ctx.name} is not available to this caller"

        return refused


@dataclass
class ToolCount:
    """How many tool calls a run made (a registered run-local value)."""

    calls: int = 0


register_name("hookproof.examples.ToolCount", ToolCount)


class ToolAudit(BaseChatModelAgentMiddleware):
    """Counts tool calls in a run-local value and sends the total when the run ends."""

    def wrap_invokable_tool_call(
        self, ctx: RunContext, endpoint: Any, tool_ctx: ToolContext
    ) -> Any:
        def counted(ctx: RunContext, arguments: str) -> str:
            result = str(endpoint(ctx, arguments))  # a call that pauses is counted on resume
            count, _ = get_run_local_value(ctx, "audit")
            set_run_local_value(ctx, "audit", ToolCount((count or ToolCount()).calls + 1))
            return result

        return counted

    def after_agent(self, ctx: RunContext, state: ChatModelAgentState) -> RunContext:
        count, _ = get_run_local_value(ctx, "audit")
        send_event(ctx, AgentEvent(custom={"tool_calls": (count or ToolCount()).calls}))
        return ctx


def build_eino_support_agent(
    model: Any, *, handlers: Sequence[Any] | None = None
) -> ChatModelAgent:
    """The support agent: every tool registered, the filter and the audit as handlers."""
    return ChatModelAgent(
        model=model,
        name="support",
        instruction="You are a support agent. Use only the tools you are shown.",
        tools=[public_search, internal_lookup, refund],
        handlers=list(handlers) if handlers is not None else [RoleToolFilter(), ToolAudit()],
        checkpointer=InMemoryCheckpointer(),
    )
