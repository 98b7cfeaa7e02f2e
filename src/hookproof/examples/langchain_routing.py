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
    SYSTEM_PROMPT,
    model_pool,
    require_role,
    route,
    search_public_knowledge,
    tip_for,
)

__all__ = [
    "LANGCHAIN_BUSINESS_TOOLS",
    "LangChainRouter",
    "LangChainScopeNote",
    "LangChainToolRegistry",
    "build_langchain_agent",
    "build_langchain_deep_agent",
]


public_search = tool("public_search")(search_public_knowledge)
calculate_tip = tool("calculate_tip")(tip_for)


@tool
def internal_lookup(customer_id: str, runtime: ToolRuntime) -> str:
    """Look up a customer record (analysts and admins only)."""
    require_role(runtime, {"analyst", "admin"})
    return f"internal:{customer_id}"


@tool
def export_customer_report(customer_id: str, runtime: ToolRuntime) -> str:
    """Export a full customer report (admins only)."""
    require_role(runtime, {"admin"})
    return f"report:{customer_id}"


LANGCHAIN_BUSINESS_TOOLS = [public_search, internal_lookup, export_customer_report]


class LangChainRouter(AgentMiddleware):
    """Model tier and visible business tools from the trusted context; anything else is guest."""

    def __init__(self, models: Mapping[str, Any]) -> None:
        super().__init__()
        self.models = model_pool(models)

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        runtime = request.runtime
        context = runtime.context if runtime is not None else None
        model, tools = route(context, self.models, request.tools)
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
