"""Upgrade gating: compare two snapshot directories and decide whether the change may land.

Run the same suite before and after an upgrade, each writing its snapshots to its own
directory, then ``hookproof gate BASELINE CANDIDATE``. Snapshots are paired by relative path;
a snapshot only in the baseline is BREAKING (the suite lost a recorded request), one only in
the candidate is REVIEW. The report is data; ``format_text``, ``format_markdown`` and
``format_json`` render it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from hookproof.errors import InvalidInputError
from hookproof.snapshot._diff import Change, ChangeClass, diff
from hookproof.snapshot._render import RequestView, parse

__all__ = [
    "DEFAULT_FAIL_ON",
    "FileReport",
    "GateReport",
    "compare_directories",
    "format_json",
    "format_markdown",
    "format_text",
    "parse_fail_on",
]

DEFAULT_FAIL_ON = frozenset({ChangeClass.BREAKING, ChangeClass.SECURITY})
_SNAPSHOT_PREFIX = "hookproof final request"


@dataclass(frozen=True)
class FileReport:
    path: str
    status: str  # unchanged | changed | added | removed
    changes: tuple[Change, ...] = ()


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

    @property
    def exit_code(self) -> int:
        return 1 if self.failing else 0

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


def _snapshots(directory: Path, role: str) -> dict[str, Path]:
    if not directory.is_dir():
        raise InvalidInputError(
            f"hookproof: the {role} directory {str(directory)!r} does not exist or is not a "
            "directory. Pass the snapshot directories written before and after the upgrade."
        )
    found = {}
    for path in sorted(directory.rglob("*.txt")):
        with path.open(encoding="utf-8", errors="replace") as stream:
            if stream.readline().startswith(_SNAPSHOT_PREFIX):
                found[path.relative_to(directory).as_posix()] = path
    return found


def _read(path: Path) -> RequestView:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidInputError(
            f"hookproof: cannot read snapshot {str(path)!r} ({error}). Regenerate it with "
            "--snapshot-update."
        ) from None
    return parse(text, source=str(path))


def _compare(name: str, old: Path | None, new: Path | None) -> FileReport:
    if old is None:
        added = Change(ChangeClass.REVIEW, "snapshot", "new snapshot (not in the baseline)")
        return FileReport(name, "added", (added,))
    if new is None:
        lost = Change(ChangeClass.BREAKING, "snapshot", "missing from the candidate")
        return FileReport(name, "removed", (lost,))
    changes = diff(_read(old), _read(new)).changes
    return FileReport(name, "changed" if changes else "unchanged", changes)


def compare_directories(
    baseline: Path, candidate: Path, *, fail_on: Iterable[ChangeClass] = DEFAULT_FAIL_ON
) -> GateReport:
    """Pair the snapshot files of two directories and classify every change."""
    old, new = _snapshots(baseline, "baseline"), _snapshots(candidate, "candidate")
    if not old and not new:
        raise InvalidInputError(
            f"hookproof: neither {str(baseline)!r} nor {str(candidate)!r} holds a hookproof "
            "snapshot. Run the suite with --snapshot-update into each directory first."
        )
    files = tuple(_compare(name, old.get(name), new.get(name)) for name in sorted({*old, *new}))
    return GateReport(str(baseline), str(candidate), files, frozenset(fail_on))


def _verdict(report: GateReport) -> str:
    classes = ", ".join(sorted(kind.value for kind in report.fail_on)) or "nothing"
    if report.failing:
        return f"FAILED: {len(report.failing)} change(s) of a failing class ({classes})"
    return f"PASSED: no change of a failing class ({classes})"


def format_text(report: GateReport) -> str:
    lines = [f"hookproof gate: {report.baseline} -> {report.candidate}"]
    for item in report.files:
        if item.status == "unchanged":
            continue
        lines.append(f"{item.path} ({item.status})")
        lines += [f"  {change.describe()}" for change in item.changes]
    unchanged = sum(1 for item in report.files if item.status == "unchanged")
    counts = ", ".join(f"{name} {count}" for name, count in report.counts().items())
    lines += [f"{len(report.files)} snapshots, {unchanged} unchanged; {counts}", _verdict(report)]
    return "\n".join(lines)


def _cell(text: str | None) -> str:
    return "" if text is None else text.replace("|", "\\|").replace("\n", "<br>")


def format_markdown(report: GateReport) -> str:
    icon = "❌" if report.failing else "✅"
    lines = [f"### {icon} hookproof gate", "", _verdict(report), ""]
    changed = [item for item in report.files if item.changes]
    if changed:
        lines += ["| snapshot | class | subject | change |", "|---|---|---|---|"]
        for item in changed:
            for change in item.changes:
                row = (item.path, change.kind.value, change.subject, change.what)
                lines.append("| " + " | ".join(_cell(part) for part in row) + " |")
        lines.append("")
    counts = ", ".join(f"{name}: {count}" for name, count in report.counts().items())
    lines.append(f"{len(report.files)} snapshots compared ({counts}).")
    return "\n".join(lines)


def format_json(report: GateReport) -> str:
    data = {
        "baseline": report.baseline,
        "candidate": report.candidate,
        "fail_on": sorted(kind.value for kind in report.fail_on),
        "passed": not report.failing,
        "counts": report.counts(),
        "files": [
            {
                "path": item.path,
                "status": item.status,
                "changes": [change.as_dict() for change in item.changes],
            }
            for item in report.files
        ],
    }
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)
