"""Pairing two snapshot directories and classifying every change.

Snapshots are paired by relative path; a snapshot only in the baseline is BREAKING (the suite
lost a recorded request), one only in the candidate is REVIEW. A side without any snapshot is
bad input: an empty baseline would make every candidate snapshot merely "new" (a pass that
checked nothing), an empty candidate every baseline snapshot "missing"; both usually mean a
job wrote its snapshots somewhere else. The first run of a new suite passes
``allow_empty_baseline=True``; an empty candidate is always an error.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from hookproof.errors import InvalidInputError
from hookproof.gate._load import Unreadable, load_directory, require_directory, unreadable_error
from hookproof.gate._report import DEFAULT_FAIL_ON, FileReport, GateReport
from hookproof.snapshot import Change, ChangeClass, RequestView, diff
from hookproof.snapshot.findings import sections_for

__all__ = ["compare_directories", "compare_snapshots"]


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


def compare_snapshots(name: str, old: RequestView | None, new: RequestView | None) -> FileReport:
    """One snapshot before and after (None: that side has no such snapshot)."""
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
    require_directory(baseline, "baseline")
    require_directory(candidate, "candidate")
    problems: list[Unreadable] = []
    old, new = load_directory(baseline, problems), load_directory(candidate, problems)
    if problems:
        raise unreadable_error(problems)
    _require_snapshots((baseline, len(old)), (candidate, len(new)), allow_empty_baseline)
    files = tuple(
        compare_snapshots(name, old.get(name), new.get(name)) for name in sorted({*old, *new})
    )
    return GateReport(str(baseline), str(candidate), files, frozenset(fail_on))
