"""Normalisation of volatile values (ids, uuids, timestamps, temp paths) before rendering.

A matcher is either a ``(pattern, label)`` pair — every match is replaced by ``<label-N>``,
numbered by first appearance within one request, so equal values stay equal — or a
callable ``str -> str`` applied to every rendered text value. A pattern matcher marked
``prose_only`` (``dates``) applies to the text of the system prompt and the messages alone:
tool schemas, descriptions, tool_choice, response_format and settings keep their values, so
the gate still sees a change there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

__all__ = ["DEFAULT_MATCHERS", "Matcher", "Normaliser", "dates", "regex"]


@dataclass(frozen=True)
class RegexMatcher:
    """Replace every match of ``pattern`` with ``<label-N>`` (N by first appearance)."""

    pattern: re.Pattern[str]
    label: str
    prose_only: bool = False
    """Only the text of the system prompt and the messages, not schemas or settings."""


Matcher: TypeAlias = RegexMatcher | Callable[[str], str]


def regex(pattern: str, label: str) -> RegexMatcher:
    """A matcher replacing each distinct match of ``pattern`` by ``<label-N>``."""
    return RegexMatcher(re.compile(pattern), label)


DEFAULT_MATCHERS: tuple[Matcher, ...] = (
    regex(
        r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b", "uuid"
    ),
    regex(
        r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?\b", "timestamp"
    ),
    regex(r"(?:/private)?(?:/tmp|/var/folders)(?:/[^\s\"'/]+)+", "tmp-path"),
)


_MONTH = "(?:January|February|March|April|May|June|July|August|September|October|November|December)"
_WEEKDAY = r"(?:(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday),?\s+)?"
_ISO_DATE = r"\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
_ISO_TIME = r"(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
_LONG_DATES = (
    rf"{_WEEKDAY}{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,\s+\d{{4}}",  # Monday, January 5, 2026
    rf"{_WEEKDAY}\d{{1,2}}\s+{_MONTH}\s+\d{{4}}",  # Monday 5 January 2026
)

dates: RegexMatcher = RegexMatcher(
    re.compile(rf"\b(?:{_ISO_DATE}{_ISO_TIME}|{'|'.join(_LONG_DATES)})\b"), "date", prose_only=True
)
"""Masks dates by ``<date-N>``: ISO-8601 dates and datetimes (``2026-01-05``,
``2026-01-05T09:30:00Z``, ``2026-01-05 09:30:00.123456``) and English long dates
(``Monday, January 5, 2026``, ``5 January 2026``), in the text of the system prompt and the
messages only: a date in a tool schema (an enum value), a description, tool_choice,
response_format or settings is part of the contract and stays visible. Not a default: put it
first, ``matchers=[dates, *DEFAULT_MATCHERS]``, to mask a prompt's "today" instead of freezing
time."""


@dataclass
class Normaliser:
    """Stable placeholders for one rendering: the same value always gets the same label."""

    matchers: Sequence[Matcher] = DEFAULT_MATCHERS
    normalise_ids: bool = True
    _seen: dict[tuple[str, str], str] = field(default_factory=dict)
    _counts: dict[str, int] = field(default_factory=dict)

    def placeholder(self, label: str, value: str) -> str:
        key = (label, value)
        if key not in self._seen:
            number = self._counts.get(label, 0)
            self._counts[label] = number + 1
            self._seen[key] = f"<{label}-{number}>"
        return self._seen[key]

    def ident(self, label: str, value: str | None) -> str | None:
        """An id (message id, tool-call id): replaced when ids are normalised."""
        if value is None or not self.normalise_ids:
            return value
        return self.placeholder(label, value)

    def text(self, value: str) -> str:
        """A value outside the prompt and messages: every matcher but the prose-only ones."""
        return self._apply(value, prose=False)

    def prose(self, value: str) -> str:
        """Text of the system prompt or a message: every matcher."""
        return self._apply(value, prose=True)

    def _apply(self, value: str, *, prose: bool) -> str:
        for matcher in self.matchers:
            if isinstance(matcher, RegexMatcher):
                if matcher.prose_only and not prose:
                    continue
                value = matcher.pattern.sub(self._replacer(matcher.label), value)
            else:
                value = matcher(value)
        return value

    def _replacer(self, label: str) -> Callable[[re.Match[str]], str]:
        return lambda match: self.placeholder(label, match.group(0))
