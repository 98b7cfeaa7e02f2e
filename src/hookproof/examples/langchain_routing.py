"""The role-routed support agent rebuilt with LangChain middleware, for the real frameworks.

The same application as ``hookproof.examples.dynamic_routing`` (roles, model tiers, fail-closed
routing, protected tools, a tool registered at run time with both hooks), written against
LangChain v1's middleware API so it runs on ``langchain.agents.create_agent`` and on
deepagents' ``create_deep_agent``. Importing it imports LangChain.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain.tools import ToolRuntime
from langchain_core.tools import tool

from hookproof.examples.dynamic_routing import (
    BUSINESS_TOOL_NAMES,
    ROLE_TOOL_NAMES,
    SYSTEM_PROMPT,
    AgentContext,
    visible_business_tools,
)

__all__ = [
    "LANGCHAIN_BUSINESS_TOOLS",
    "LangChainRouter",
    "LangChainScopeNote",
    "LangChainToolRegistry",
    "build_langchain_agent",
    "build_langchain_deep_agent",
]


def _role(runtime: Any) -> str:
    context = getattr(runtime, "context", None)
    return context.role if isinstance(context, AgentContext) else "guest"


def _require(runtime: Any, allowed: set[str]) -> None:
    role = _role(runtime)
    if role not in allowed:
        raise PermissionError(f"role {role!r} may not call this tool")


@tool
def public_search(query: str) -> str:
    """Search the public knowledge base."""
    return f"public:{query}"


@tool
def internal_lookup(customer_id: str, runtime: ToolRuntime) -> str:
    """Look up a customer record (analysts and admins only)."""
    _require(runtime, {"analyst", "admin"})
    return f"internal:{customer_id}"


@tool
def export_customer_report(customer_id: str, runtime: ToolRuntime) -> str:
    """Export a full customer report (admins only)."""
    _require(runtime, {"admin"})
    return f"report:{customer_id}"


@tool
def calculate_tip(amount: float, percentage: float = 15.0) -> str:
    """Calculate a tip from a bill amount and a percentage."""
    return f"{amount * percentage / 100:.2f}"


LANGCHAIN_BUSINESS_TOOLS = [public_search, internal_lookup, export_customer_report]


class LangChainRouter(AgentMiddleware):
    """Model tier and visible business tools from the trusted context; anything else is guest."""

    def __init__(self, models: Mapping[str, Any]) -> None:
        super().__init__()
        if "fast" not in models or "reasoning" not in models:
            raise ValueError("models must contain both 'fast' and 'reasoning'")
        self.models = dict(models)

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        runtime = request.runtime
        context = runtime.context if runtime is not None else None
        trusted = (
            isinstance(context, AgentContext)
            and context.role in ROLE_TOOL_NAMES
            and context.model_tier in self.models
        )
        allowed = visible_business_tools(context.role if trusted else "guest")  # type: ignore[union-attr]
        tools = [t for t in request.tools if t.name not in BUSINESS_TOOL_NAMES or t.name in allowed]
        model = self.models[context.model_tier if trusted else "fast"]  # type: ignore[union-attr]
        return handler(request.override(model=model, tools=tools))


class LangChainToolRegistry(AgentMiddleware):
    """calculate_tip made visible (wrap_model_call) and executable (wrap_tool_call)."""

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return handler(request.override(tools=[*request.tools, calculate_tip]))

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        if request.tool_call["name"] == calculate_tip.name:
            return handler(request.override(tool=calculate_tip))
        return handler(request)


def build_langchain_agent(models: Mapping[str, Any], *, middleware: tuple[Any, ...] = ()) -> Any:
    """The application on LangChain's create_agent."""
    return create_agent(
        models["fast"],
        list(LANGCHAIN_BUSINESS_TOOLS),
        system_prompt=SYSTEM_PROMPT,
        middleware=[LangChainRouter(models), LangChainToolRegistry(), *middleware],
    )


def build_langchain_deep_agent(models: Mapping[str, Any], **options: Any) -> Any:
    """The application on deepagents' create_deep_agent (needs hookproof[deepagents])."""
    from deepagents import create_deep_agent  # type: ignore[import-not-found,unused-ignore]

    return create_deep_agent(
        model=models["fast"],
        tools=list(LANGCHAIN_BUSINESS_TOOLS),
        system_prompt=SYSTEM_PROMPT,
        middleware=[LangChainRouter(models), LangChainToolRegistry()],
        **options,
    )


class LangChainScopeNote(AgentMiddleware):
    """Append a scope note to the system message, keeping its blocks and metadata."""

    def __init__(self, note: str = "Answer only about the current customer.") -> None:
        super().__init__()
        self.note = note

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        from langchain_core.messages import SystemMessage

        current = request.system_message
        if current is None:
            return handler(request.override(system_message=SystemMessage(content=self.note)))
        blocks = current.content if isinstance(current.content, list) else [current.content]
        note = {"type": "text", "text": self.note}
        updated = current.model_copy(update={"content": [*blocks, note]})
        return handler(request.override(system_message=updated))
