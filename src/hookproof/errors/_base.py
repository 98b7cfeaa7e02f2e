"""The base of every hookproof error, the builtin-typed usage errors, and the helpers that
word messages. A message is redacted when the error is made."""

from __future__ import annotations

__all__ = [
    "HookproofError",
    "ImmutableError",
    "InvalidInputError",
    "UsageError",
    "did_you_mean",
    "ordinal",
    "redacted",
    "safe_repr",
]


class HookproofError(Exception):
    """Base class of every error hookproof raises on its own behalf.

    The message is redacted (``hookproof.redaction``) when the error is made: messages show
    requests, contexts and settings, and reach pytest's output, JUnit XML and CI logs."""

    def __init__(self, *args: object) -> None:
        super().__init__(*_redacted_args(args))


def _redacted_args(args: tuple[object, ...]) -> tuple[object, ...]:
    return tuple(redacted(item) if isinstance(item, str) else item for item in args)


def redacted(text: str) -> str:
    """``text`` redacted by the redaction installed for the process."""
    # Only when an error is made: the patterns cost `import hookproof` several ms.
    from hookproof._secrets.installed import redact_installed

    return redact_installed(text)


def safe_repr(value: object, limit: int) -> str:
    """``repr(value)``, redacted, then cut to ``limit`` characters (``f"{value!r:.60}"``
    made safe): redacting first matters, as a secret cut in half no longer looks like one."""
    return redacted(repr(value))[:limit]


class UsageError(HookproofError, TypeError):
    """hookproof was called with arguments of the wrong kind."""


class InvalidInputError(HookproofError, ValueError):
    """A value handed to hookproof has the right type but cannot be used."""


class ImmutableError(HookproofError, AttributeError):
    """Something tried to change an immutable hookproof value in place."""


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
