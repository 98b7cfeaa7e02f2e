"""Provider prompt caching: the last system block is marked with cache_control."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hookproof.runtime import AgentMiddleware, ModelRequest

__all__ = ["ProviderPromptCacheMiddleware"]

Handler = Callable[[Any], Any]


class ProviderPromptCacheMiddleware(AgentMiddleware):
    """Mark the last system block for provider-side prompt caching."""

    def __init__(self, cache_control: Mapping[str, Any] | None = None) -> None:
        self.cache_control = dict(cache_control or {"type": "ephemeral"})

    def wrap_model_call(self, request: ModelRequest, handler: Handler) -> Any:
        system = request.system_message
        if system is None or not system.content or system.content[-1].cache_control:
            return handler(request)
        last = system.content[-1].override(cache_control=self.cache_control)
        marked = system.model_copy(update={"content": [*system.content[:-1], last]})
        return handler(request.override(system_message=marked))
