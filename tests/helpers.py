"""Small middleware and tools shared by the runtime, contracts and adapter tests."""

from __future__ import annotations

from typing import Any

from hookproof.runtime import AgentMiddleware, tool

ALL_HOOKS = (
    "before_agent",
    "before_model",
    "after_model",
    "after_agent",
    "wrap_model_call",
    "wrap_tool_call",
)


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"found:{query}"


@tool
def add(a: int, b: int = 1) -> int:
    """Add two integers."""
    return a + b


class Everything(AgentMiddleware):
    """Defines every hook, sync and async, each delegating to the handler unchanged."""

    def __init__(self, name: str) -> None:
        self.name = name

    def before_agent(self, state: Any, runtime: Any) -> None:
        return None

    def before_model(self, state: Any, runtime: Any) -> None:
        return None

    def after_model(self, state: Any, runtime: Any) -> None:
        return None

    def after_agent(self, state: Any, runtime: Any) -> None:
        return None

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request)

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        return handler(request)

    async def abefore_model(self, state: Any, runtime: Any) -> None:
        return None

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        return await handler(request)

    async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
        return await handler(request)


def hook_labels(result: Any) -> list[str]:
    """The hook, layer, model and tool events of a run, without state updates."""
    return result.trace.labels("hook", "layer", "model", "tool")


class RetriesThrice:
    """A wrap_model_call that tries the model up to three times on ``retry_on`` errors and then
    raises the last one. A mixin, so the same retry serves every framework's middleware:
    ``class Retry(RetriesThrice, AgentMiddleware)`` with hookproof's or LangChain's base."""

    retry_on: tuple[type[Exception], ...] = (Exception,)

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        for attempt in range(3):
            try:
                return handler(request)
            except self.retry_on:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")
