"""Small middleware and tools shared by the runtime, contracts and adapter tests."""

from __future__ import annotations

from typing import Any

from hookproof.harness import HarnessProfile, ProfileRegistry
from hookproof.runtime import AgentMiddleware, tool

NODE_HOOKS = ("before_agent", "before_model", "after_model", "after_agent")
WRAP_HOOKS = ("wrap_model_call", "wrap_tool_call")
ALL_HOOKS = NODE_HOOKS + WRAP_HOOKS


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


def passing_through(class_name: str, *hooks: str) -> type[AgentMiddleware]:
    """A middleware class, built with a name as Everything is, that defines only the given
    hooks of Everything's (sync ``wrap_model_call`` or async ``awrap_model_call`` alike)."""
    methods = {hook: vars(Everything)[hook] for hook in hooks}
    return type(class_name, (AgentMiddleware,), {"__init__": Everything.__init__, **methods})


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


def registry_of(*profiles: tuple[str, HarnessProfile]) -> ProfileRegistry:
    """A fresh ProfileRegistry with each ``(name, profile)`` registered, in order (a name
    registered again merges into what it had)."""
    registry = ProfileRegistry()
    for name, profile in profiles:
        registry.register_harness_profile(name, profile)
    return registry
