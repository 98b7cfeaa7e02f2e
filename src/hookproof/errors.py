"""hookproof's exceptions: one base class, usage errors that are also builtin errors.

Every message follows one shape: what happened (with values), why it matters, how to fix it.
"""

from __future__ import annotations

__all__ = [
    "ConnectionBlocked",
    "DuplicateMiddlewareError",
    "DuplicateToolError",
    "HookproofError",
    "ImmutableError",
    "InvalidInputError",
    "MaxIterationsExceeded",
    "MissingAsyncHookError",
    "RealModelBlocked",
    "ScriptExhausted",
    "ToolError",
    "UnexecutableToolError",
    "UsageError",
]


class HookproofError(Exception):
    """Base class of every error hookproof raises on its own behalf."""


class UsageError(HookproofError, TypeError):
    """hookproof was called with arguments of the wrong kind."""


class InvalidInputError(HookproofError, ValueError):
    """A value handed to hookproof has the right type but cannot be used."""


class ImmutableError(HookproofError, AttributeError):
    """Something tried to change an immutable hookproof value in place."""


class DuplicateToolError(InvalidInputError):
    """Two tools with the same name were registered on one agent; ``tool_name`` is it."""

    def __init__(self, message: str, *, tool_name: str | None = None) -> None:
        super().__init__(message)
        self.tool_name = tool_name


class DuplicateMiddlewareError(InvalidInputError):
    """Two middleware with the same name were given to one agent."""


class UnexecutableToolError(HookproofError):
    """A model request shows the model a tool that nothing can execute."""


class MaxIterationsExceeded(HookproofError):
    """The agent loop called the model more often than max_iterations allows."""


class MissingAsyncHookError(UsageError):
    """A hook exists only in its async form but the agent was run synchronously."""


class RealModelBlocked(HookproofError):
    """A test reached for a real model provider while hookproof's guard was on: it called a
    model not declared offline, or opened a connection to a host that is not loopback."""


class ConnectionBlocked(RealModelBlocked, ConnectionError):
    """The guard refused a socket connection to a host that is not loopback.

    Also a ConnectionError, so client libraries treat it as a failed connection: they close
    the socket, and report it in their own connection error (the message stays visible).
    """


class ScriptExhausted(HookproofError):
    """A ScriptedModel was called after its last scripted turn."""


class ToolError(HookproofError):
    """Raise from a tool to report a failure the model should see and may correct.

    The runtime turns it into a ToolMessage with status "error". Any other exception raised
    by a tool propagates out of invoke(), because it is a defect, not an answer.
    """


def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st, ..."""
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"


def did_you_mean(name: str, known: list[str] | tuple[str, ...]) -> str:
    """`` Did you mean 'x'?`` for the closest known name, or an empty string."""
    import difflib  # only on the error path: it costs `import hookproof` several ms

    hint = difflib.get_close_matches(name, list(known), n=1)
    return f" Did you mean {hint[0]!r}?" if hint else ""
