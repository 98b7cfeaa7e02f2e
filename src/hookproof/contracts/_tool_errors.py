"""check_tool_errors_surface: tool failures stay visible through wrap_tool_call."""

from __future__ import annotations

from typing import Any

from hookproof._support.untimed import untimed
from hookproof.contracts import _middleware_hooks as hooks
from hookproof.contracts._report import CheckReport, Exercise
from hookproof.errors import safe_repr
from hookproof.messages import ToolMessage
from hookproof.targets import hook_sampler

__all__ = ["check_tool_errors_surface"]


def _surfaced(
    middleware: object, error: BaseException, exercise: Exercise, context: Any
) -> str | None:
    method = hooks.hook_of(middleware, "wrap_tool_call")
    if method is None:
        return None
    exercise.hook(f"{hooks.name_of(middleware)}.wrap_tool_call")
    called = []

    def handler(_request: Any) -> Any:
        called.append(True)
        raise error

    try:
        result = method(_tool_request_for(middleware, context), handler)
    except BaseException as raised:  # noqa: BLE001 - re-raising is the accepted outcome
        if not called and isinstance(raised, Exception):
            hooks.raised_on_sample(exercise, "wrap_tool_call", raised, "tool call")
            return None
        return (
            None
            if raised is error or isinstance(raised, type(error))
            else (f"{type(error).__name__} came out as {type(raised).__name__}: {raised}")
        )
    if not called:
        exercise.not_tried(
            f"wrap_tool_call never called its handler on the sample call, so a "
            f"{type(error).__name__} from the tool could not be raised"
        )
        return None
    status = getattr(result, "status", None)
    text = _message_text(result)
    if status is None:
        return f"{type(error).__name__} became a {type(result).__name__}"
    if status != "error":
        return f"{type(error).__name__} became a success ToolMessage {safe_repr(text, 80)}"
    if type(error).__name__ not in text:
        kind = type(error).__name__
        return f"{kind} became an error ToolMessage that does not name it: {safe_repr(text, 80)}"
    return None


def _message_text(message: Any) -> str:
    """Text of a hookproof or LangChain ToolMessage."""
    if isinstance(message, ToolMessage):
        return message.text
    content = getattr(message, "content", "")
    return content if isinstance(content, str) else str(content)


def _tool_request_for(middleware: object, context: Any = None) -> Any:
    return hook_sampler(middleware).sample_tool_request(context=context)


_PROMISE = hooks.Promise(
    invariant="tool failures stay visible: re-raised, or an error ToolMessage naming it",
    fix="catch only the errors you mean to translate, return ToolMessage(..., "
    "status='error') naming the error type, and let the rest propagate; never `except "
    "Exception: return 'failed'`",
    to_exercise="pass the middleware that wraps tool calls; its wrap_tool_call must call its "
    "handler for the sample call",
)


@untimed
def check_tool_errors_surface(
    middleware: object, *, context: Any = None, allow_untested: bool = False
) -> CheckReport:
    """Permission denials and programming errors in tools are re-raised, or become an
    error-status ToolMessage naming the error type; never a success. A middleware without
    wrap_tool_call, or one that never calls its handler, is not a pass."""
    __tracebackhide__ = True
    exercise = Exercise("check_tool_errors_surface", allow_untested=allow_untested)
    hooks.nothing_to_check(middleware, exercise, ("wrap_tool_call",))
    errors = (
        PermissionError("role 'guest' may not call this tool"),
        KeyError("customer"),
        TypeError("bad call"),
    )
    found = [
        problem for error in errors if (problem := _surfaced(middleware, error, exercise, context))
    ]
    return hooks.verdict(
        exercise,
        middleware,
        _PROMISE,
        found,
        f"middleware {hooks.name_of(middleware)!r} around tools that raise",
        replay_args=hooks.context_arg(context),
    )
