"""Memory: AGENTS.md-style files from the file store, loaded into the system prompt."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hookproof.harness._system import with_section
from hookproof.harness.backend import files_of
from hookproof.harness.prompts import MEMORY_SECTION
from hookproof.runtime import AgentMiddleware, ModelRequest

__all__ = ["MemoryMiddleware"]

Handler = Callable[[Any], Any]


class MemoryMiddleware(AgentMiddleware):
    """Load AGENTS.md-style files from the file store into the system prompt."""

    def __init__(self, sources: Sequence[str]) -> None:
        self.sources = tuple(sources)

    def wrap_model_call(self, request: ModelRequest, handler: Handler) -> Any:
        files = files_of(request.state)
        for path in self.sources:
            if path in files:
                request = with_section(
                    request, MEMORY_SECTION.format(path=path, content=files[path])
                )
        return handler(request)
