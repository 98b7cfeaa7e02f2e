"""Where check reports go while a test runs, so the plugin and ``hookproof check`` can total
what the contracts really exercised. Kept free of imports: the plugin loads it for every test.

A check calls ``record(report)``; ``collecting()`` (entered by the plugin around each test
call) gathers the reports of that test. ``totals(reports)`` adds up their counts.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol

__all__ = [
    "COUNTS",
    "FOLD_AT",
    "PROPERTY",
    "collecting",
    "current_test_memo",
    "decode",
    "describe",
    "encode",
    "from_properties",
    "record",
    "totals",
]

# The counts every report gives, in the order reports print them.
COUNTS = (
    "checks",
    "runs",
    "contexts",
    "tool_calls_attempted",
    "tool_calls_executed",
    "hooks_observed",
    "interrupts_resumed",
    "untested",
)
PROPERTY = "hookproof_exercised"  # the name of the per-test junit property


class Countable(Protocol):
    def counts(self) -> Mapping[str, int]: ...


# Process-wide on purpose: a check may run in a thread the test started. pytest runs one test
# at a time per process (xdist uses processes).
_ACTIVE: list[_Collected] = []
_LOCK = threading.Lock()


# Reports a test keeps before they are folded into one count: a property test or a fuzz
# campaign records one per example, and only their total is read.
FOLD_AT = 256


class _Collected(list[Any]):
    """One test's reports (the older ones folded into their total), and ``memo``: what a
    check may reuse within that test only."""

    def __init__(self) -> None:
        super().__init__()
        self.memo: dict[Any, Any] = {}

    def add(self, report: Countable) -> None:
        self.append(report)
        if len(self) >= FOLD_AT:
            self[:] = [_Folded(totals(item.counts() for item in self))]


class _Folded:
    """Reports folded into their total: counted as they were."""

    def __init__(self, summed: Mapping[str, int]) -> None:
        self.summed = dict(summed)

    def counts(self) -> Mapping[str, int]:
        return self.summed


def current_test_memo() -> dict[Any, Any] | None:
    """A dict that lives as long as the test that is running, or None outside one: a check
    reuses work across its calls within one test (a property test's examples), never across
    tests, whose fixtures and monkeypatches may make the same factory build another agent."""
    with _LOCK:
        return _ACTIVE[-1].memo if _ACTIVE else None


def record(report: Countable) -> None:
    """Keep ``report`` for the test that is running (if any test is collecting)."""
    with _LOCK:
        if _ACTIVE:
            _ACTIVE[-1].add(report)


@contextmanager
def collecting() -> Iterator[list[Any]]:
    """Collect the reports recorded inside the ``with`` block."""
    reports = _Collected()
    with _LOCK:
        _ACTIVE.append(reports)
    try:
        yield reports
    finally:
        with _LOCK:
            _ACTIVE.remove(reports)


def totals(counted: Iterable[Mapping[str, int]]) -> dict[str, int]:
    """The sum of each count over several reports' ``counts()`` (missing counts are 0)."""
    summed = dict.fromkeys(COUNTS, 0)
    for counts in counted:
        for name in COUNTS:
            summed[name] += int(counts.get(name, 0))
    return summed


def describe(summed: Mapping[str, int]) -> str:
    """One line for people: ``12 checks exercised 40 runs, 3 contexts, ...``."""
    parts = [f"{summed.get(name, 0)} {name.replace('_', ' ')}" for name in COUNTS[1:]]
    return f"{summed.get('checks', 0)} check calls exercised " + ", ".join(parts)


def encode(summed: Mapping[str, int]) -> str:
    """``checks=3 runs=40 ...``: one property value, readable in junit XML."""
    return " ".join(f"{name}={int(summed.get(name, 0))}" for name in COUNTS)


def decode(value: str) -> dict[str, int]:
    """The counts of an ``encode``d value; unknown names and malformed parts are ignored."""
    counts = {}
    for part in value.split():
        name, _, number = part.partition("=")
        if name in COUNTS and number.isdigit():
            counts[name] = int(number)
    return counts


def from_properties(groups: Iterable[Iterable[tuple[str, object]]]) -> dict[str, int] | None:
    """The totals of every exercised property among the given reports' properties, or None
    when there is none (no contract check ran)."""
    values = [str(value) for group in groups for name, value in group if name == PROPERTY]
    return totals(decode(value) for value in values) if values else None
