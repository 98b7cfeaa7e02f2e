"""The agent: two tools, a role filter and a short system prompt."""

from __future__ import annotations

from dataclasses import dataclass

from hookproof.runtime import AgentMiddleware, create_agent, tool

ADMIN_ONLY = frozenset({"refund"})


@dataclass(frozen=True)
class Ctx:
    role: str


@tool
def lookup(query: str) -> str:
    """Search the help center."""
    return f"found {query}"


@tool
def refund(order_id: str) -> str:
    """Refund an order."""
    return f"refunded {order_id}"


class RoleFilter(AgentMiddleware):
    """Only admins see refund; every other tool is left alone."""

    def wrap_model_call(self, request, handler):
        if request.runtime.context.role != "admin":
            visible = [t for t in request.tools if t.name not in ADMIN_ONLY]
            request = request.override(tools=visible)
        return handler(request)


def build_agent(model):
    return create_agent(
        model,
        [lookup, refund],
        system_prompt="You are a support agent. Answer from the help center.",
        middleware=[RoleFilter()],
        context_schema=Ctx,
    )
