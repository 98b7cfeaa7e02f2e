"""``hookproof review``: walk pending snapshots and accept, reject or skip each one.

A run with ``--hookproof-pending`` leaves ``<name>.txt.pending`` beside each snapshot whose
comparison failed. Review shows each one's semantic diff with its classes and the changed
lines (as the gate does), then asks. Accepting moves the pending file over the reviewed one
with ``os.replace`` (atomic: a reader sees the old file or the new one, never half of
either); rejecting deletes it; skipping leaves it for later. A pending file that is not a
readable snapshot is never accepted. Every file is read through ``hookproof._support.safe_files``
and must stay inside the reviewed directory: a pending name that is a FIFO, a directory or
a link out of it is listed and refused, never opened, followed or silently passed over.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from hookproof._support.safe_files import check_inside, kind_of, read_text, remove_file
from hookproof.errors import FileAccessError, InvalidInputError, SnapshotFormatError
from hookproof.gate._compare import compare_snapshots
from hookproof.gate._text import TEXT_DIFF_LINES
from hookproof.redaction import redact_text
from hookproof.snapshot import RequestView, parse
from hookproof.snapshot.files import PENDING_SUFFIX
from hookproof.snapshot.findings import diff_lines, group_findings

__all__ = ["PENDING_SUFFIX", "Decision", "Pending", "find_pending", "review"]

_ANSWERS = {"a": "accept", "r": "reject", "s": "skip", "q": "quit"}
_PROMPT = "accept, reject, skip, or quit? [a/r/s/q] "


@dataclass(frozen=True)
class Pending:
    """A proposed snapshot and the reviewed file it would replace."""

    path: Path
    root: Path

    @property
    def reviewed(self) -> Path:
        return self.path.with_name(self.path.name.removesuffix(PENDING_SUFFIX))

    @property
    def name(self) -> str:
        return self.reviewed.relative_to(self.root).as_posix()


@dataclass(frozen=True)
class Decision:
    name: str
    action: str  # accept | reject | skip | refused


def find_pending(root: Path) -> list[Pending]:
    """Every entry named ``*.txt.pending`` under ``root``, of any kind, by path."""
    if not root.is_dir():
        raise InvalidInputError(
            f"hookproof: {str(root)!r} is not a directory, so it holds no pending snapshots. "
            "Pass the snapshot directory (default: snapshots) that a run with "
            "--hookproof-pending wrote to."
        )
    found = sorted(root.rglob(f"*.txt{PENDING_SUFFIX}"))
    return [Pending(path, root) for path in found]


def _read(path: Path, root: Path) -> RequestView:
    return parse(read_text(path, root=root), source=str(path))


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def describe(item: Pending) -> list[str]:
    """The semantic diff of a pending snapshot against the reviewed one, with its lines."""
    try:
        new = _read(item.path, item.root)
    except (FileAccessError, SnapshotFormatError) as error:
        return [f"  cannot be read as a snapshot ({error.problem}); it cannot be accepted"]
    try:
        old: RequestView | None = (
            _read(item.reviewed, item.root) if _exists(item.reviewed) else None
        )
    except (FileAccessError, SnapshotFormatError) as error:
        old, note = None, [f"  the reviewed file is not a snapshot in this format: {error.problem}"]
    else:
        note = [] if old is not None else ["  no reviewed file yet: accepting creates it"]
    report = compare_snapshots(item.name, old, new)
    if not report.changes:
        return [*note, "  no semantic change (the texts differ only in ways the diff ignores)"]
    lines = note
    for finding in group_findings([(item.name, report.changes, report.sections)]):
        # Changes of one finding often read alike (each changed line of a section).
        lines += [f"  {said}" for said in dict.fromkeys(c.describe() for c in finding.changes)]
        lines += [f"      {line}" for line in diff_lines(finding, TEXT_DIFF_LINES)]
    return lines


def _acceptable(item: Pending) -> bool:
    """A readable snapshot, not a link, replacing nothing but a regular file, inside."""
    if item.path.is_symlink():
        return False
    try:
        _read(item.path, item.root)
        check_inside(item.reviewed, item.root)
    except (FileAccessError, SnapshotFormatError):
        return False
    return not _exists(item.reviewed) or kind_of(item.reviewed) == "a regular file"


def apply(item: Pending, action: str) -> str:
    """Carry out ``action`` on the pending file; what was done (``refused`` if it cannot
    be accepted, or a directory named like it cannot be removed)."""
    if action == "accept":
        if not _acceptable(item):
            return "refused"
        os.replace(item.path, item.reviewed)
    elif action == "reject":
        try:
            remove_file(item.path, root=item.root)
        except FileAccessError:
            return "refused"
    return action


def _ask(read: Callable[[], str], out: TextIO) -> str:
    while True:
        out.write(_PROMPT)
        out.flush()
        answer = read()
        if not answer:  # end of input: stop, leave the rest pending
            out.write("\n")
            return "quit"
        choice = _ANSWERS.get(answer.strip().lower()[:1])
        if choice is not None:
            return choice
        out.write("  please answer a (accept), r (reject), s (skip) or q (quit)\n")


def _decisions(
    items: list[Pending], everything: str | None, read: Callable[[], str], out: TextIO
) -> Iterator[Decision]:
    for number, item in enumerate(items, 1):
        # A file written before a secret's format was known may still hold it: show none.
        out.write(redact_text(f"[{number}/{len(items)}] {item.name}\n"))
        out.write(redact_text("\n".join(describe(item))) + "\n")
        action = everything or _ask(read, out)
        if action == "quit":
            return
        done = apply(item, action)
        out.write(f"  -> {done}{_refusal(done)}\n")
        yield Decision(item.name, done)


def _refusal(done: str) -> str:
    if done != "refused":
        return ""
    return (
        " (not a readable snapshot that may replace the reviewed file: remove it by hand, "
        "or fix the test and run it again)"
    )


def review(
    root: Path,
    *,
    everything: str | None = None,
    read: Callable[[], str],
    out: TextIO,
) -> int:
    """Review every pending snapshot under ``root``; ``everything`` (accept / reject)
    answers for all. Exit status: 0 when none is left pending, 1 otherwise."""
    items = find_pending(root)
    if not items:
        out.write(f"hookproof review: no pending snapshots under {root}.\n")
        return 0
    decisions = list(_decisions(items, everything, read, out))
    counts = {done: sum(d.action == action for d in decisions) for action, done in _DONE.items()}
    left = len(items) - counts["accepted"] - counts["rejected"]
    summary = ", ".join(f"{count} {done}" for done, count in counts.items())
    out.write(f"hookproof review: {summary}; {left} left pending.\n")
    return 1 if left else 0


_DONE = {"accept": "accepted", "reject": "rejected", "skip": "skipped", "refused": "refused"}
