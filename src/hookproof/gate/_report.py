"""The gate's verdict as data: each snapshot's changes, the findings, what fails."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from hookproof.errors import InvalidInputError
from hookproof.snapshot import Change, ChangeClass
from hookproof.snapshot.findings import Finding, Section, group_findings, plural

__all__ = ["DEFAULT_FAIL_ON", "FileReport", "GateReport", "parse_fail_on", "summary", "verdict"]

DEFAULT_FAIL_ON = frozenset({ChangeClass.BREAKING, ChangeClass.SECURITY})


@dataclass(frozen=True)
class FileReport:
    path: str
    status: str  # unchanged | changed | added | removed
    changes: tuple[Change, ...] = ()
    sections: tuple[Section, ...] = ()


@dataclass(frozen=True)
class GateReport:
    baseline: str
    candidate: str
    files: tuple[FileReport, ...]
    fail_on: frozenset[ChangeClass]

    @property
    def failing(self) -> list[tuple[str, Change]]:
        return [
            (item.path, change)
            for item in self.files
            for change in item.changes
            if change.kind in self.fail_on
        ]

    @cached_property
    def findings(self) -> tuple[Finding, ...]:
        """The changes by subject, identical ones across snapshots once, most severe first."""
        return group_findings((item.path, item.changes, item.sections) for item in self.files)

    @property
    def exit_code(self) -> int:
        return 1 if self.failing else 0

    @property
    def unchanged(self) -> int:
        return sum(1 for item in self.files if item.status == "unchanged")

    def counts(self) -> dict[str, int]:
        totals = {kind.value: 0 for kind in ChangeClass}
        for item in self.files:
            for change in item.changes:
                totals[change.kind.value] += 1
        return totals


def parse_fail_on(value: str) -> frozenset[ChangeClass]:
    """``"breaking,security"`` -> the classes; ``"none"`` or ``""`` -> never fail."""
    names = [part.strip().upper() for part in value.split(",") if part.strip()]
    if names in ([], ["NONE"]):
        return frozenset()
    valid = {kind.value for kind in ChangeClass}
    unknown = [name for name in names if name not in valid]
    if unknown:
        raise InvalidInputError(
            f"hookproof: --fail-on has unknown classes {unknown}. Use a comma-separated list "
            f"of {sorted(name.lower() for name in valid)}, or none."
        )
    return frozenset(ChangeClass(name) for name in names)


def verdict(report: GateReport) -> str:
    """The last line of every format: passed or failed, and on which classes."""
    classes = ", ".join(sorted(kind.value for kind in report.fail_on)) or "nothing"
    if report.failing:
        return f"FAILED: {len(report.failing)} change(s) of a failing class ({classes})"
    return f"PASSED: no change of a failing class ({classes})"


def summary(report: GateReport) -> str:
    counts = ", ".join(f"{name} {count}" for name, count in report.counts().items())
    distinct = plural(len(report.findings), "distinct finding")
    snapshots = plural(len(report.files), "snapshot")
    return f"{snapshots}, {report.unchanged} unchanged; {counts} ({distinct})"
