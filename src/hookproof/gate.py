"""Upgrade gating: compare two snapshot directories and decide whether the change may land.

Run the same suite before and after an upgrade, each writing its snapshots to its own
directory, then ``hookproof gate BASELINE CANDIDATE``. Snapshots are paired by relative path;
a snapshot only in the baseline is BREAKING (the suite lost a recorded request), one only in
the candidate is REVIEW. The report is data; ``format_text``, ``format_markdown`` and
``format_json`` render it (``format_html`` in hookproof._report_html).

Every report shows each change's lines: the diff of the section it touched (the system prompt,
the messages, a tool's description and parameter schema, a setting), capped with a "N more
lines" marker, most severe first (SECURITY, BREAKING, REVIEW, COSMETIC). Identical changes in
several snapshots are reported once, with every snapshot they occur in. Everything a report
shows passes through ``hookproof.redaction``.

Every ``*.txt`` file under either directory is a snapshot and must be read; other names
(README.md, .gitkeep) are not looked at. The gate fails closed: a ``*.txt`` it cannot read (a
byte-order mark, not UTF-8, another format, truncated, a directory, FIFO or device, a link to
anything but a regular file) and any link to a directory stop it with InvalidInputError listing
every such file, before anything is compared. Links to regular files are followed. Windows line
endings (a core.autocrlf checkout) are read as LF, as pytest's text-mode read of a snapshot.

A side without any snapshot is bad input too: an empty baseline would make every candidate
snapshot merely "new" (a pass that checked nothing), an empty candidate every baseline snapshot
"missing"; both usually mean a job wrote its snapshots somewhere else. The first run of a new
suite passes ``allow_empty_baseline=True`` (``--allow-empty-baseline``); an empty candidate is
always an error, since a suite that records nothing has nothing left to gate.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from hookproof._gate_markdown import markdown_finding
from hookproof._gate_sections import (
    RANK,
    Finding,
    Section,
    cap,
    diff_lines,
    group_findings,
    plural,
    sections_for,
    unified,
)
from hookproof._safe_files import MAX_FILE_BYTES, check_inside, kind_of
from hookproof._snapshot_files import BOM, is_snapshot_name, read_regular_file
from hookproof.errors import InvalidInputError, SnapshotFormatError, UnsafePathError
from hookproof.redaction import redact_data, redact_text
from hookproof.snapshot import Change, ChangeClass, RequestView, diff, parse

__all__ = [
    "DEFAULT_FAIL_ON",
    "FileReport",
    "GateReport",
    "compare_directories",
    "format_html",
    "format_json",
    "format_markdown",
    "format_text",
    "parse_fail_on",
]

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


@dataclass(frozen=True)
class _Unreadable:
    path: Path
    reason: str


def _require_directory(directory: Path, role: str) -> None:
    if not directory.is_dir():
        raise InvalidInputError(
            f"hookproof: the {role} directory {str(directory)!r} does not exist or is not a "
            "directory. Pass the snapshot directories written before and after the upgrade."
        )


def _candidate_paths(directory: Path, problems: list[_Unreadable]) -> Iterator[Path]:
    """Every entry named ``*.txt``, of any kind, and every link to a directory (not entered)."""

    def unlisted(error: OSError) -> None:
        where = Path(error.filename) if error.filename else directory
        problems.append(_Unreadable(where, f"cannot be listed ({error.strerror or error})"))

    for root, subdirectories, files in os.walk(directory, onerror=unlisted):
        here = Path(root)
        for name in subdirectories:
            path = here / name
            if path.is_symlink() or is_snapshot_name(path):
                yield path
        yield from (here / name for name in files if is_snapshot_name(Path(name)))


def _kind(path: Path) -> str:
    """What a path that is not a regular file is, links followed."""
    kind = kind_of(path)
    return "gone (removed while the gate ran)" if kind == "missing" else kind


def _universal_newlines(text: str) -> str:
    """Line endings as pytest's text-mode read gives them: CRLF and CR become LF.

    hookproof writes LF only (a carriage return in a request shows as ``\\r``), so CRLF comes
    from a checkout (git's core.autocrlf on Windows) and converting it loses nothing.
    """
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _load(path: Path, directory: Path) -> RequestView | str:
    """The snapshot at ``path``, or why it cannot be read as one. A link out of ``directory``
    is not followed: a pull request could otherwise make the gate print any file's first
    line (``/proc/self/environ``) into a CI log."""
    try:
        check_inside(path, directory)
    except UnsafePathError as error:
        return error.problem
    try:
        data = read_regular_file(path, MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return f"is {_kind(path)}"
    except OSError as error:
        return f"cannot be read ({error.strerror or error})"
    if data is None:
        return f"is {_kind(path)}, not a regular file"
    if len(data) > MAX_FILE_BYTES:
        return f"is larger than {MAX_FILE_BYTES} bytes (is it corrupted?)"
    if data.startswith(BOM):
        return "starts with a byte-order mark (U+FEFF), which hookproof never writes"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"is not UTF-8 text (byte {error.start} is {data[error.start]:#04x})"
    try:
        return parse(_universal_newlines(text), source=str(path))
    except SnapshotFormatError as error:
        return error.problem


def _load_directory(directory: Path, problems: list[_Unreadable]) -> dict[str, RequestView]:
    views = {}
    for path in _candidate_paths(directory, problems):
        loaded = _load(path, directory)
        if isinstance(loaded, str):
            problems.append(_Unreadable(path, loaded))
        else:
            views[path.relative_to(directory).as_posix()] = loaded
    return views


def _unreadable_error(problems: list[_Unreadable]) -> InvalidInputError:
    listing = "\n".join(
        f"  {problem.path}: {problem.reason}"
        for problem in sorted(problems, key=lambda problem: str(problem.path))
    )
    count = f"{len(problems)} file{'s' if len(problems) != 1 else ''}"
    return InvalidInputError(
        f"hookproof: {count} in the snapshot directories cannot be read as hookproof "
        f"snapshots:\n{listing}\nThe gate fails closed: an unread snapshot could hide a removed "
        "tool or a newly visible one. Every *.txt file under both directories must be a "
        "snapshot in this hookproof's format: regenerate them with `pytest --snapshot-update`, "
        "copy linked directories in as real ones, and give other files another extension "
        "(README.md or .gitkeep are never read)."
    )


def _require_snapshots(
    baseline: tuple[Path, int], candidate: tuple[Path, int], allow_empty_baseline: bool
) -> None:
    """Each side is a directory and its number of snapshots; a side with none is bad input."""
    (old, old_count), (new, new_count) = baseline, candidate
    if not old_count and not new_count:
        raise InvalidInputError(
            f"hookproof: neither {str(old)!r} nor {str(new)!r} holds a hookproof "
            "snapshot. Run the suite with --snapshot-update into each directory first."
        )
    if not new_count:
        raise InvalidInputError(
            f"hookproof: the candidate directory {str(new)!r} holds no hookproof snapshot "
            f"(no *.txt file), but the baseline {str(old)!r} holds {old_count}. Every one of "
            "them would be reported missing: the candidate run most likely wrote its snapshots "
            "elsewhere, or did not run. Point the gate at the directory it wrote "
            "(-o hookproof_snapshot_dir=...). A suite that records nothing has nothing to gate."
        )
    if not old_count and not allow_empty_baseline:
        raise InvalidInputError(
            f"hookproof: the baseline directory {str(old)!r} holds no hookproof snapshot "
            f"(no *.txt file), but the candidate {str(new)!r} holds {new_count}. Every one of "
            "them would be merely new and the gate would pass without comparing anything: the "
            "baseline run most likely wrote its snapshots elsewhere. Point the gate at the "
            "directory it wrote (-o hookproof_snapshot_dir=...); for the first run of a new "
            "suite, pass --allow-empty-baseline (allow_empty_baseline=True)."
        )


def _compare(name: str, old: RequestView | None, new: RequestView | None) -> FileReport:
    if old is None:
        added = Change(ChangeClass.REVIEW, "snapshot", "new snapshot (not in the baseline)")
        return _file_report(name, "added", (added,), old, new)
    if new is None:
        lost = Change(ChangeClass.BREAKING, "snapshot", "missing from the candidate")
        return _file_report(name, "removed", (lost,), old, new)
    changes = diff(old, new).changes
    return _file_report(name, "changed" if changes else "unchanged", changes, old, new)


def _file_report(
    name: str,
    status: str,
    changes: tuple[Change, ...],
    old: RequestView | None,
    new: RequestView | None,
) -> FileReport:
    return FileReport(name, status, changes, sections_for(changes, old, new))


def compare_directories(
    baseline: Path,
    candidate: Path,
    *,
    fail_on: Iterable[ChangeClass] = DEFAULT_FAIL_ON,
    allow_empty_baseline: bool = False,
) -> GateReport:
    """Pair the snapshot files of two directories and classify every change.

    Raises InvalidInputError listing every ``*.txt`` file of either directory that is not a
    readable snapshot, and when a side holds no snapshot at all (an empty baseline is accepted
    with ``allow_empty_baseline``; see the module docstring); nothing is compared then.
    """
    _require_directory(baseline, "baseline")
    _require_directory(candidate, "candidate")
    problems: list[_Unreadable] = []
    old, new = _load_directory(baseline, problems), _load_directory(candidate, problems)
    if problems:
        raise _unreadable_error(problems)
    _require_snapshots((baseline, len(old)), (candidate, len(new)), allow_empty_baseline)
    files = tuple(_compare(name, old.get(name), new.get(name)) for name in sorted({*old, *new}))
    return GateReport(str(baseline), str(candidate), files, frozenset(fail_on))


TEXT_DIFF_LINES = 60
JSON_DIFF_LINES = 400
PR_COMMENT_LIMIT = 65_536  # the most characters a pull-request comment accepts


def _verdict(report: GateReport) -> str:
    classes = ", ".join(sorted(kind.value for kind in report.fail_on)) or "nothing"
    if report.failing:
        return f"FAILED: {len(report.failing)} change(s) of a failing class ({classes})"
    return f"PASSED: no change of a failing class ({classes})"


def _summary(report: GateReport) -> str:
    unchanged = sum(1 for item in report.files if item.status == "unchanged")
    counts = ", ".join(f"{name} {count}" for name, count in report.counts().items())
    distinct = plural(len(report.findings), "distinct finding")
    return f"{plural(len(report.files), 'snapshot')}, {unchanged} unchanged; {counts} ({distinct})"


def _where(finding: Finding, limit: int = 10) -> str:
    paths = finding.paths
    if len(paths) == 1:
        return f"in {paths[0]}"
    rest = len(paths) - limit
    shown = ", ".join(paths[:limit]) + (f" and {rest} more" if rest > 0 else "")
    return f"in {len(paths)} snapshots: {shown}"


def format_text(report: GateReport) -> str:
    lines = [f"hookproof gate: {report.baseline} -> {report.candidate}"]
    for finding in report.findings:
        lines += [change.describe() for change in finding.changes]
        lines.append(f"  {_where(finding)}")
        lines += [f"    {line}" for line in diff_lines(finding, TEXT_DIFF_LINES)]
    lines += [_summary(report), _verdict(report)]
    return redact_text("\n".join(lines))


def _cut_note(left: int, shown: int) -> str:
    return (
        f"\n**Report cut** at {PR_COMMENT_LIMIT:,} characters, the most a pull-request "
        f"comment accepts: {plural(left, 'more finding')} not shown after the {shown} above. "
        "The text, JSON and HTML reports (`--format html -o report.html`) show every one."
    )


def format_markdown(report: GateReport, limit: int = PR_COMMENT_LIMIT) -> str:
    """A pull-request comment: the verdict, then each finding in a ``<details>`` block with
    its diff, within ``limit`` characters (the rest is counted, most severe kept)."""
    icon = "❌" if report.failing else "✅"
    text = "\n".join([f"### {icon} hookproof gate", "", _verdict(report), "", _summary(report)])
    blocks = [markdown_finding(finding) for finding in report.findings]
    for index, block in enumerate(blocks):
        note = _cut_note(len(blocks) - index, index)
        if len(text) + 2 + len(block) + len(note) > limit:
            return text + note
        text += "\n\n" + block
    return text


def _json_finding(finding: Finding) -> dict[str, object]:
    lines, more = cap(unified(finding.section), JSON_DIFF_LINES)
    return {
        "classes": [kind.value for kind in finding.kinds],
        "subject": finding.subject,
        "changes": [change.as_dict() for change in finding.changes],
        "snapshots": list(finding.paths),
        "diff": lines,
        "diff_more_lines": more,
    }


def _by_rank(changes: Iterable[Change]) -> list[Change]:
    return sorted(changes, key=lambda change: RANK[change.kind])


def format_json(report: GateReport) -> str:
    data = {
        "baseline": report.baseline,
        "candidate": report.candidate,
        "fail_on": sorted(kind.value for kind in report.fail_on),
        "passed": not report.failing,
        "counts": report.counts(),
        "findings": [_json_finding(finding) for finding in report.findings],
        "files": [
            {
                "path": item.path,
                "status": item.status,
                "changes": [change.as_dict() for change in _by_rank(item.changes)],
            }
            for item in report.files
        ],
    }
    return json.dumps(redact_data(data), indent=2, sort_keys=True, ensure_ascii=False)


def format_html(report: GateReport) -> str:
    """One self-contained HTML page: summary, class filters, side-by-side diffs."""
    from hookproof._report_html import render_html

    return render_html(report)
