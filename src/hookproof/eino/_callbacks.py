"""Callback injection: on_start / on_end / on_error around a model or tool that does not run
callbacks itself (it lacks ``is_callbacks_enabled() -> True``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from hookproof._engine.checkpoint import InterruptRaised
from hookproof.eino._context import RunContext

__all__ = ["CallbackHandler", "RunInfo", "around"]


@dataclass(frozen=True)
class RunInfo:
    """Which component a callback is about."""

    name: str
    type: str
    component: Literal["ChatModel", "Tool"]


class CallbackHandler:
    """Override any of the three; each may return a new ctx (None keeps it). For a streamed
    result, on_end receives the tuple of chunks."""

    def on_start(self, ctx: RunContext, info: RunInfo, input: Any) -> RunContext | None:
        return ctx

    def on_end(self, ctx: RunContext, info: RunInfo, output: Any) -> RunContext | None:
        return ctx

    def on_error(self, ctx: RunContext, info: RunInfo, error: BaseException) -> RunContext | None:
        return ctx


def _each(handlers: Sequence[Any], name: str, ctx: RunContext, *args: Any) -> RunContext:
    for handler in handlers:
        method = getattr(handler, name, None)
        if callable(method):
            returned = method(ctx, *args)
            ctx = returned if isinstance(returned, RunContext) else ctx
    return ctx


def around(
    handlers: Sequence[Any],
    ctx: RunContext,
    info: RunInfo,
    input: Any,
    call: Callable[[RunContext], Any],
) -> Any:
    started = _each(handlers, "on_start", ctx, info, input)
    try:
        output = call(started)
    except InterruptRaised:
        raise
    except Exception as error:
        _each(handlers, "on_error", started, info, error)
        raise
    if isinstance(output, Iterator):  # a stream: on_end sees its chunks, the caller a replay
        chunks = tuple(output)
        _each(handlers, "on_end", started, info, chunks)
        return iter(chunks)
    _each(handlers, "on_end", started, info, output)
    return output
