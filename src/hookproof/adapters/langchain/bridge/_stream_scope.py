"""Which streamed run's node is running now (kept apart from the stream itself, which needs
LangGraph: a plain invoke asks only this)."""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import Any

__all__ = ["Enclosing", "enclosing_stream", "enter_node", "leave_node"]


@dataclass(frozen=True)
class Enclosing:
    """The node of a streamed run that a nested agent runs in (a tool calling an agent):
    ``request`` takes its chunks, ``namespace`` is the node's."""

    request: Any
    namespace: tuple[str, ...]


_ENCLOSING: contextvars.ContextVar[Enclosing | None] = contextvars.ContextVar(
    "hookproof_enclosing_stream", default=None
)


def enclosing_stream() -> Enclosing | None:
    """The streamed run whose node is running now, or None."""
    return _ENCLOSING.get()


def enter_node(enclosing: Enclosing) -> contextvars.Token[Enclosing | None]:
    return _ENCLOSING.set(enclosing)


def leave_node(token: contextvars.Token[Enclosing | None]) -> None:
    _ENCLOSING.reset(token)
