"""Redacted ``repr()`` and ``str()`` for values that can hold request content, kept below
hookproof.redaction so that the messages, requests and traces defining them do not load it."""

from __future__ import annotations

from typing import Any, TypeVar

from hookproof._secrets.installed import redact_installed

__all__ = ["redacted_repr"]

_Class = TypeVar("_Class", bound=type)


def redacted_repr(cls: _Class) -> _Class:
    """Class decorator: ``repr()`` and ``str()`` of ``cls`` are redacted. For values that
    can hold request content (messages, requests, traces): their reprs reach pytest's
    failure output, ``--showlocals`` and logs."""
    target: Any = cls  # mypy types __repr__ as a bound method: this replaces the function
    plain_repr, plain_str = target.__repr__, target.__str__

    def __repr__(self: object) -> str:
        return redact_installed(plain_repr(self))

    def __str__(self: object) -> str:
        return redact_installed(plain_str(self))

    target.__repr__ = __repr__
    if plain_str is not object.__str__:
        target.__str__ = __str__
    return cls
