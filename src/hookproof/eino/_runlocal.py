"""Run-local values and send_event.

Run-local values live in the engine's state under one private key, encoded by the checkpoint
serializer, so a checkpoint carries them through interrupt and resume with nothing extra.
"""

from __future__ import annotations

from typing import Any

from hookproof.eino._context import RunContext
from hookproof.eino._exec import RunExec
from hookproof.eino._records import AgentEvent
from hookproof.eino._serial import decode, encode
from hookproof.errors import RunContextError, UsageError

__all__ = [
    "delete_run_local_value",
    "get_run_local_value",
    "send_event",
    "set_run_local_value",
]

_OUTSIDE = "must be called within a ChatModelAgent Run() or Resume() execution context"


_EINO_NAMES = {
    "set_run_local_value": "SetRunLocalValue",
    "get_run_local_value": "GetRunLocalValue",
    "delete_run_local_value": "DeleteRunLocalValue",
}


def _exec_of(ctx: object, function: str) -> RunExec:
    eino = _EINO_NAMES[function]
    if not isinstance(ctx, RunContext):
        raise UsageError(
            f"hookproof: {function}() takes the ctx a hook received as its first argument, "
            f"got {type(ctx).__name__}."
        )
    run: RunExec | None = ctx._exec
    if run is None or run.finished:
        raise RunContextError(
            f"{eino} failed: {_OUTSIDE}: this ctx belongs to no running agent. Call "
            f"{function}() from a handler hook, wrapper or tool during "
            "ChatModelAgent.run()/resume(), with the ctx that hook received."
        )
    if not run.state_ready:
        raise RunContextError(
            f"{eino} failed: {_OUTSIDE}: run-local values do not exist yet in before_agent "
            f"(the run's state is created after it). Call {function}() from "
            "before_model_rewrite_state on, or pass data forward with ctx.with_value()."
        )
    return run


def _check_key(key: object, function: str) -> str:
    if not isinstance(key, str):
        raise UsageError(f"hookproof: {function}() keys are str, got {type(key).__name__}.")
    return key


def set_run_local_value(ctx: RunContext, key: str, value: Any) -> None:
    """Store ``value`` for the rest of this run (and across interrupt/resume).

    The value must be serializable by the checkpoint serializer: built-in types, hookproof
    messages, or a type registered with ``register_name``; anything else fails here, at set
    time, not later when a checkpoint is written.
    """
    run = _exec_of(ctx, "set_run_local_value")
    key = _check_key(key, "set_run_local_value")
    encoded = encode(value, what=f"run-local value {key!r}")
    run.write_run_local({**run.run_local(), key: encoded}, source="set_run_local_value")


def get_run_local_value(ctx: RunContext, key: str) -> tuple[Any, bool]:
    """``(value, True)`` when set in this run, else ``(None, False)``.

    The value is decoded from its saved form, so it is a copy: change it and set it again.
    """
    run = _exec_of(ctx, "get_run_local_value")
    stored = run.run_local().get(_check_key(key, "get_run_local_value"))
    return (None, False) if stored is None else (decode(stored), True)


def delete_run_local_value(ctx: RunContext, key: str) -> None:
    """Forget ``key`` for the rest of this run (no error when it was not set)."""
    run = _exec_of(ctx, "delete_run_local_value")
    values = dict(run.run_local())
    if values.pop(_check_key(key, "delete_run_local_value"), None) is not None:
        run.write_run_local(values, source="delete_run_local_value")


def send_event(ctx: RunContext, event: AgentEvent) -> None:
    """Add ``event`` to the run's event stream (works from before_agent on)."""
    if not isinstance(event, AgentEvent):
        raise UsageError(
            f"hookproof: send_event() takes an AgentEvent, got {type(event).__name__}. "
            "Example: send_event(ctx, AgentEvent(custom={'progress': 0.5}))."
        )
    if not isinstance(ctx, RunContext) or ctx._exec is None or ctx._exec.finished:
        raise RunContextError(
            f"TypedSendEvent failed: {_OUTSIDE}. send_event() needs the ctx a "
            "handler hook, wrapper or tool received during ChatModelAgent.run()/resume()."
        )
    ctx._exec.emit(event, owner=ctx._exec.handle.location if ctx._exec.handle else None)
