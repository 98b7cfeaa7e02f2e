"""``hookproof review``: walk pending snapshots and accept, reject or skip each one.

A run with ``--hookproof-pending`` leaves ``<name>.txt.pending`` beside each snapshot whose
comparison failed. Review shows each one's semantic diff with its classes and the changed
lines (as the gate does), then asks. Accepting moves the pending file over the reviewed one
with ``os.replace`` (atomic: a reader sees the old file or the new one, never half of
either); rejecting deletes it; skipping leaves it for later. A pending file that is not a
readable snapshot is never accepted.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from hookproof._gate_sections import diff_lines, group_findings
from hookproof.errors import InvalidInputError, SnapshotFormatError
from hookproof.gate import TEXT_DIFF_LINES, _compare
from hookproof.snapshot import RequestView, parse

__all__ = ["PENDING_SUFFIX", "Decision", "Pending", "find_pending", "review"]

PENDING_SUFFIX = ".pending"  # as hookproof.snapshot.extension writes it
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
    """Every ``*.txt.pending`` regular file under ``root``, by path."""
    if not root.is_dir():
        raise InvalidInputError(
            f"hookproof: {str(root)!r} is not a directory, so it holds no pending snapshots. "
            "Pass the snapshot directory (default: snapshots) that a run with "
            "--hookproof-pending wrote to."
        )
    found = sorted(root.rglob(f"*.txt{PENDING_SUFFIX}"))
    return [Pending(path, root) for path in found if path.is_file() and not path.is_symlink()]


def _read(path: Path) -> RequestView:
    return parse(path.read_text(encoding="utf-8"), source=str(path))


def describe(item: Pending) -> list[str]:
    """The semantic diff of a pending snapshot against the reviewed one, with its lines."""
    try:
        new = _read(item.path)
    except (OSError, UnicodeDecodeError, SnapshotFormatError) as error:
        return [f"  cannot be read as a snapshot ({error}); it can only be rejected or skipped"]
    try:
        old: RequestView | None = _read(item.reviewed) if item.reviewed.exists() else None
    except (OSError, UnicodeDecodeError, SnapshotFormatError):
        old, note = None, ["  the reviewed file is not in this hookproof's format"]
    else:
        note = [] if old is not None else ["  no reviewed file yet: accepting creates it"]
    report = _compare(item.name, old, new)
    if not report.changes:
        return [*note, "  no semantic change (the texts differ only in ways the diff ignores)"]
    lines = note
    for finding in group_findings([(item.name, report.changes, report.sections)]):
        lines += [f"  {change.describe()}" for change in finding.changes]
        lines += [f"      {line}" for line in diff_lines(finding, TEXT_DIFF_LINES)]
    return lines


def _readable(item: Pending) -> bool:
    try:
        _read(item.path)
    except (OSError, UnicodeDecodeError, SnapshotFormatError):
        return False
    return True


def apply(item: Pending, action: str) -> str:
    """Carry out ``action`` on the pending file; what was done (``refused`` if unreadable)."""
    if action == "accept":
        if not _readable(item):
            return "refused"
        os.replace(item.path, item.reviewed)
    elif action == "reject":
        item.path.unlink(missing_ok=True)
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
        out.write(f"[{number}/{len(items)}] {item.name}\n")
        out.write("\n".join(describe(item)) + "\n")
        action = everything or _ask(read, out)
        if action == "quit":
            return
        done = apply(item, action)
        out.write(f"  -> {done}{_refusal(done)}\n")
        yield Decision(item.name, done)


def _refusal(done: str) -> str:
    return " (not a readable snapshot: reject it or fix the test)" if done == "refused" else ""


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
