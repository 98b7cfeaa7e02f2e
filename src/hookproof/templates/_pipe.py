"""A small pipe: feed a template's output into an agent run (or any next step)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hookproof.errors import UsageError

__all__ = ["Pipe", "output_key", "pipe"]


@dataclass(frozen=True)
class OutputKey:
    """A step that wraps the previous step's value as ``{key: value}``."""

    key: str

    def invoke(self, value: Any) -> dict[str, Any]:
        return {self.key: value}


def output_key(key: str) -> OutputKey:
    return OutputKey(key)


def _runner(step: Any, index: int) -> Callable[[Any], Any]:
    for method in ("invoke", "format"):
        bound = getattr(step, method, None)
        if callable(bound):
            return bound  # type: ignore[no-any-return]
    if callable(step):
        return step  # type: ignore[no-any-return]
    raise UsageError(
        f"hookproof: pipe step #{index} is a {type(step).__name__}; a step is a template, an "
        "agent, output_key(...) or a function of the previous value."
    )


@dataclass(frozen=True)
class Pipe:
    """Steps run in order; each receives the previous one's value."""

    steps: tuple[Any, ...]

    def invoke(self, value: Any) -> Any:
        for index, step in enumerate(self.steps):
            value = _runner(step, index)(value)
        return value

    def __or__(self, other: Any) -> Pipe:
        return Pipe((*self.steps, other))


def pipe(*steps: Any) -> Pipe:
    """``pipe(template, output_key("messages"), agent).invoke(variables)`` -> the RunResult."""
    return Pipe(steps)
