"""The role-routed support agent: fail-closed tool filtering and model routing by context.

The application the source article builds (sections 3-4): three business tools, a role
whitelist, a model pool with a fast and a reasoning tier, a router middleware that reads
the trusted context (and falls back to the least privilege when it is missing or unknown),
protected tools that re-check the role, and a tool registered at run time with both hooks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeGuard

from hookproof.runtime import (
    Agent,
    AgentMiddleware,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
    ToolRuntime,
    create_agent,
    tool,
)

Role = Literal["guest", "analyst", "admin"]
ModelTier = Literal["fast", "reasoning"]


@dataclass(frozen=True)
class AgentContext:
    """Identity and routing data supplied by the trusted application, never by the user."""

    role: Role = "guest"
    model_tier: ModelTier = "fast"


def role_of(context: object) -> str:
    """The role a trusted context carries; anything else is a guest."""
    return context.role if isinstance(context, AgentContext) else "guest"


def require_role(runtime: object, allowed: set[str]) -> None:
    """Protected tools re-check the role from their tool runtime's context (a hookproof or a
    LangChain ``ToolRuntime``)."""
    role = role_of(getattr(runtime, "context", None))
    if role not in allowed:
        raise PermissionError(f"role {role!r} may not call this tool")


# The application's own functions; each framework registers them as its tools.
def search_public_knowledge(query: str) -> str:
    """Search the public knowledge base."""
    return f"public:{query}"


def tip_for(amount: float, percentage: float = 15.0) -> str:
    """Calculate a tip from a bill amount and a percentage."""
    return f"{amount * percentage / 100:.2f}"


public_search = tool("public_search")(search_public_knowledge)
calculate_tip = tool("calculate_tip")(tip_for)


@tool
def internal_lookup(customer_id: str, runtime: ToolRuntime[AgentContext]) -> str:
    """Look up a customer record (analysts and admins only)."""
    require_role(runtime, {"analyst", "admin"})
    return f"internal:{customer_id}"


@tool
def export_customer_report(customer_id: str, runtime: ToolRuntime[AgentContext]) -> str:
    """Export a full customer report (admins only)."""
    require_role(runtime, {"admin"})
    return f"report:{customer_id}"


SYSTEM_PROMPT = "You are a support agent. Use tools to answer; cite the tool you used."
BUSINESS_TOOLS = (public_search, internal_lookup, export_customer_report)
BUSINESS_TOOL_NAMES = frozenset(item.name for item in BUSINESS_TOOLS)
ROLE_TOOL_NAMES: Mapping[str, frozenset[str]] = {
    "guest": frozenset({"public_search"}),
    "analyst": frozenset({"public_search", "internal_lookup"}),
    "admin": BUSINESS_TOOL_NAMES,
}


def visible_business_tools(role: str) -> frozenset[str]:
    """The business tools a role may see; an unknown role gets the guest's."""
    return ROLE_TOOL_NAMES.get(role, ROLE_TOOL_NAMES["guest"])


def _trusted(context: object, models: Mapping[str, Any]) -> TypeGuard[AgentContext]:
    """A context is trusted only when every field is one the application issues."""
    return (
        isinstance(context, AgentContext)
        and context.role in ROLE_TOOL_NAMES
        and context.model_tier in models
    )


def model_pool(models: Mapping[str, Any]) -> dict[str, Any]:
    """The router's models by tier; both tiers are required."""
    if "fast" not in models or "reasoning" not in models:
        raise ValueError("models must contain both 'fast' and 'reasoning'")
    return dict(models)


def route(
    context: object, models: Mapping[str, Any], tools: Sequence[Any]
) -> tuple[Any, list[Any]]:
    """The model and the tools a request gets: the tier and the business tools of a trusted
    context's role, the guest's on the fast tier for anything else (fail closed)."""
    if _trusted(context, models):
        model, role = models[context.model_tier], context.role
    else:
        model, role = models["fast"], "guest"
    allowed = visible_business_tools(role)
    return model, [t for t in tools if t.name not in BUSINESS_TOOL_NAMES or t.name in allowed]


class RequestRouter(AgentMiddleware):
    """Choose the model tier and the visible business tools from the trusted context."""

    def __init__(self, models: Mapping[str, Any]) -> None:
        self.models = model_pool(models)

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse:
        runtime = request.runtime
        context = runtime.context if runtime is not None else None
        model, tools = route(context, self.models, request.tools)
        return handler(request.override(model=model, tools=tools))


class RuntimeToolRegistry(AgentMiddleware):
    """Make calculate_tip visible (wrap_model_call) and executable (wrap_tool_call)."""

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse:
        return handler(request.override(tools=[*request.tools, calculate_tip]))

    def wrap_tool_call(self, request: ToolCallRequest, handler: Callable[..., Any]) -> Any:
        if request.tool_call.name == calculate_tip.name:
            return handler(request.override(tool=calculate_tip))
        return handler(request)


def build_models(fast: Any = None, reasoning: Any = None) -> dict[str, Any]:
    """The model pool; injected models are checked with ``is not None`` (a falsy model is valid)."""
    from hookproof.models import RecordingModel, ScriptedModel

    fast_model = fast if fast is not None else RecordingModel(ScriptedModel(["ok"], name="fast"))
    reasoning_model = reasoning if reasoning is not None else fast_model
    return {"fast": fast_model, "reasoning": reasoning_model}


def build_support_agent(
    models: Mapping[str, Any], *, middleware: tuple[object, ...] = (), runtime_tools: bool = True
) -> Agent:
    """The example agent: router first, then the runtime tool registry, then yours."""
    stack: list[object] = [RequestRouter(models)]
    if runtime_tools:
        stack.append(RuntimeToolRegistry())
    return create_agent(
        models["fast"],
        list(BUSINESS_TOOLS),
        system_prompt=SYSTEM_PROMPT,
        middleware=[*stack, *middleware],
        name="support",
    )


def build_deep_support_agent(
    models: Mapping[str, Any],
    *,
    middleware: tuple[object, ...] = (),
    runtime_tools: bool = True,
    model: Any = None,
    **harness: Any,
) -> Agent:
    """The same application on the deep-agent harness: harness tools stay visible.

    ``model`` is the agent's initial model (profiles are resolved from it); it defaults to
    the fast tier. ``harness`` is passed to create_deep_agent (profiles=, checkpointer=, ...).
    """
    from hookproof.harness import create_deep_agent

    stack: list[object] = [RequestRouter(models)]
    if runtime_tools:
        stack.append(RuntimeToolRegistry())
    return create_deep_agent(
        model if model is not None else models["fast"],
        list(BUSINESS_TOOLS),
        system_prompt=SYSTEM_PROMPT,
        middleware=[*stack, *middleware],
        name="support",
        **harness,
    )


def validate_unique_tool_names(tools: list[object]) -> None:
    """Start-up check: two tools with one name would split schema and executor."""
    names = [str(getattr(candidate, "name", "")) for candidate in tools]
    duplicates = sorted({name for name in names if name and names.count(name) > 1})
    if duplicates:
        raise ValueError(f"duplicate tool names: {', '.join(duplicates)}")


class ScopeNoteMiddleware(AgentMiddleware):
    """Append a scope note to the system message, keeping its blocks and metadata."""

    def __init__(self, note: str = "Answer only about the current customer.") -> None:
        self.note = note

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse:
        from hookproof.messages import SystemMessage

        current = request.system_message
        if current is None:
            updated = SystemMessage(content=self.note)
        else:
            note = {"type": "text", "text": self.note}
            updated = current.model_copy(update={"content": [*current.content, note]})
        return handler(request.override(system_message=updated))
