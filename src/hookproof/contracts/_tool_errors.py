"""check_tool_errors_surface: tool failures stay visible through wrap_tool_call."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hookproof._support.untimed import untimed
from hookproof.contracts import _middleware_hooks as hooks
from hookproof.contracts._report import CheckReport, Exercise
from hookproof.errors import UsageError, safe_repr
from hookproof.messages import ToolMessage
from hookproof.targets import hook_sampler

__all__ = ["check_tool_errors_surface"]


@dataclass(frozen=True)
class _Call:
    """The tool call the middleware is run on: the sample call, or the user's tool."""

    context: Any
    tool: Any = None
    args: Mapping[str, Any] | None = None

    def request(self, middleware: object) -> Any:
        sampler = hook_sampler(middleware)
        if self.tool is None:
            return sampler.sample_tool_request(context=self.context)
        return sampler.sample_tool_request(context=self.context, tool=self.tool, args=self.args)

    @property
    def name(self) -> str | None:
        return None if self.tool is None else _tool_name(self.tool)

    def described(self) -> str:
        return "the sample call" if self.tool is None else f"a call to {self.name!r}"

    def replay_args(self) -> str:
        given = "" if self.tool is None else f", tool={self.name!r}"
        arguments = "" if self.args is None else f", args={dict(self.args)!r}"
        return hooks.context_arg(self.context) + given + arguments


def _tool_name(tool: Any) -> str:
    return tool if isinstance(tool, str) else str(getattr(tool, "name", tool))


def _surfaced(
    middleware: object, error: BaseException, exercise: Exercise, call: _Call
) -> str | None:
    method = hooks.hook_of(middleware, "wrap_tool_call")
    if method is None:
        return None
    exercise.hook(f"{hooks.name_of(middleware)}.wrap_tool_call")
    called = []

    def handler(_request: Any) -> Any:
        called.append(True)
        raise error

    request = call.request(middleware)  # a bad tool= is the caller's error, raised here
    try:
        result = method(request, handler)
    except BaseException as raised:  # noqa: BLE001 - re-raising is the accepted outcome
        if not called and isinstance(raised, Exception):
            hooks.raised_on_sample(exercise, "wrap_tool_call", raised, _sample_name(call), "tool")
            return None
        return (
            None
            if raised is error or isinstance(raised, type(error))
            else (f"{type(error).__name__} came out as {type(raised).__name__}: {raised}")
        )
    if not called:
        if (refused := _refused(call, result)) not in exercise.untested:
            exercise.not_tried(refused)
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


def _sample_name(call: _Call) -> str:
    return "tool call" if call.tool is None else f"call to {call.name!r}"


def _refused(call: _Call, answer: Any) -> str:
    """Why the error path was not tried: the middleware answered the call itself."""
    fix = (
        "pass tool= a tool of yours that this middleware lets through"
        if call.tool is None
        else "pass tool= a tool this middleware lets through for that context"
    )
    return (
        f"wrap_tool_call never called its handler on {call.described()} (context="
        f"{call.context!r}): it answered {safe_repr(_message_text(answer), 80)} itself, so no "
        f"error from the tool could be raised; {fix}"
    )


_PROMISE = hooks.Promise(
    invariant="tool failures stay visible: re-raised, or an error ToolMessage naming it",
    fix="catch only the errors you mean to translate, return ToolMessage(..., "
    "status='error') naming the error type, and let the rest propagate; never `except "
    "Exception: return 'failed'`",
    to_exercise="pass the middleware that wraps tool calls; its wrap_tool_call must call its "
    "handler for the call (tool=: one of your tools it lets through)",
)


@untimed
def check_tool_errors_surface(
    middleware: object,
    *,
    context: Any = None,
    tool: Any = None,
    args: Mapping[str, Any] | None = None,
    allow_untested: bool = False,
) -> CheckReport:
    """Permission denials and programming errors in tools are re-raised, or become an
    error-status ToolMessage naming the error type; never a success. A middleware without
    wrap_tool_call, or one that never calls its handler, is not a pass.

    The middleware's wrap_tool_call is given a call of ``tool`` (your tool object, of the
    middleware's framework, or a tool name; called with ``args``, none by default) for the
    runtime ``context``, and a handler that raises; without ``tool``, a call of hookproof's
    sample_search tool, which an allow-list filter refuses: then name one of your tools it
    lets through."""
    __tracebackhide__ = True
    if args is not None and tool is None:
        raise UsageError(
            "hookproof: check_tool_errors_surface takes args= only with tool= (the arguments "
            f"of a call to that tool), got args={args!r} alone. Pass tool=<your tool> too."
        )
    exercise = Exercise("check_tool_errors_surface", allow_untested=allow_untested)
    hooks.nothing_to_check(middleware, exercise, ("wrap_tool_call",))
    call = _Call(context, tool, args)
    errors = (
        PermissionError("role 'guest' may not call this tool"),
        KeyError("customer"),
        TypeError("bad call"),
    )
    found = [
        problem for error in errors if (problem := _surfaced(middleware, error, exercise, call))
    ]
    around = "tools that raise" if tool is None else f"{call.name!r} raising"
    return hooks.verdict(
        exercise,
        middleware,
        _PROMISE,
        found,
        f"middleware {hooks.name_of(middleware)!r} around {around}",
        replay_args=call.replay_args(),
    )
