"""The findings of a snapshot change: the lines of the part of the request it touched.

Each change's subject (``system prompt``, ``messages``, ``tool NAME``, ``model``,
``provenance``, ...) names a section of the snapshot; the report shows that section's diff,
unified (the gate's text, markdown and JSON reports, a failing snapshot assertion,
``hookproof review``) or side by side (the HTML report). Identical changes in several
snapshots (an upgrade that adds the same tool to every request) are one Finding listing
every snapshot, so a report over many snapshots reads each change once. Every line shown is
redacted again here: a snapshot written by an older hookproof, or by hand, may hold a secret
its writer did not mask.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from hookproof.redaction import redact_text
from hookproof.snapshot._change import Change, ChangeClass
from hookproof.snapshot._render import render
from hookproof.snapshot._request_view import RequestView

__all__ = [
    "LINE_CHARACTERS",
    "RANK",
    "Finding",
    "Section",
    "SideRow",
    "cap",
    "diff_lines",
    "group_findings",
    "plural",
    "section_of",
    "sections_for",
    "side_by_side",
    "unified",
]

RANK = {
    ChangeClass.SECURITY: 0,
    ChangeClass.BREAKING: 1,
    ChangeClass.REVIEW: 2,
    ChangeClass.COSMETIC: 3,
}
_SCALARS = ("model", "tool_choice", "response_format", "settings")
_CONTEXT = 3
LINE_CHARACTERS = 400


@dataclass(frozen=True)
class Section:
    """The lines of one subject of a snapshot, before and after (empty where absent)."""

    subject: str
    old: tuple[str, ...]
    new: tuple[str, ...]


@dataclass(frozen=True)
class Finding:
    """One subject's changes, identical in every snapshot of ``paths``; ``section`` is the
    first snapshot's (the others differ at most in unchanged lines around the change)."""

    changes: tuple[Change, ...]
    paths: tuple[str, ...]
    section: Section

    @property
    def subject(self) -> str:
        return self.section.subject

    @property
    def kinds(self) -> tuple[ChangeClass, ...]:
        return tuple(sorted({change.kind for change in self.changes}, key=RANK.__getitem__))

    @property
    def rank(self) -> int:
        return min(RANK[change.kind] for change in self.changes)


@dataclass(frozen=True)
class SideRow:
    """One row of a side-by-side diff; ``tag`` is equal / delete / insert / replace, or
    ``gap`` between two hunks. Line numbers count from 1; None where a side has no line."""

    tag: str
    old_number: int | None = None
    old_text: str = ""
    new_number: int | None = None
    new_text: str = ""


def _pretty(value: Any) -> list[str]:
    if isinstance(value, str):
        return value.split("\n")
    return json.dumps(value, sort_keys=True, ensure_ascii=False, indent=2).split("\n")


def _tool_lines(view: RequestView, name: str) -> list[str]:
    tool = view.tool(name)
    if tool is None:
        return []
    description = [f"| {line}" if line else "|" for line in tool.description.split("\n")]
    return ["description:", *description, "parameters:", *_pretty(dict(tool.parameters))]


def _raw_lines(view: RequestView, subject: str) -> Sequence[str]:
    if subject == "system prompt":
        return view.system
    if subject == "messages":
        return view.messages
    if subject.startswith("tool "):
        return _tool_lines(view, subject.removeprefix("tool "))
    if subject in _SCALARS:
        return _pretty(getattr(view, subject))
    lines = render(view).rstrip("\n").split("\n")
    if subject == "provenance":
        return _provenance_lines(lines)
    if subject == "agent":
        return [line for line in lines[1:3] if line.startswith("agent: ")]
    return lines  # "snapshot": the whole file


def _provenance_lines(lines: list[str]) -> list[str]:
    """The rendered provenance section: its top-level heading is the file's last one."""
    if "provenance:" not in lines:
        return []
    return lines[len(lines) - lines[::-1].index("provenance:") - 1 :]


def _redacted(lines: Sequence[str]) -> tuple[str, ...]:
    return tuple(redact_text("\n".join(lines)).split("\n")) if lines else ()


def section_of(subject: str, old: RequestView | None, new: RequestView | None) -> Section:
    """The lines ``subject`` names in each snapshot, redacted (none for a missing side)."""
    before = _raw_lines(old, subject) if old is not None else ()
    after = _raw_lines(new, subject) if new is not None else ()
    return Section(subject, _redacted(before), _redacted(after))


def sections_for(
    changes: Iterable[Change], old: RequestView | None, new: RequestView | None
) -> tuple[Section, ...]:
    """One section per subject the changes name, in their order."""
    subjects = dict.fromkeys(change.subject for change in changes)
    return tuple(section_of(subject, old, new) for subject in subjects)


def _changed_lines(section: Section) -> tuple[str, ...]:
    return tuple(line for line in unified(section) if line[:1] in "+-")


def _key(changes: Sequence[Change], section: Section) -> tuple[Any, ...]:
    described = tuple((c.kind, c.what, c.before, c.after, c.origin) for c in changes)
    return section.subject, described, _changed_lines(section)


def group_findings(
    files: Iterable[tuple[str, Sequence[Change], Sequence[Section]]],
) -> tuple[Finding, ...]:
    """Every (path, changes, sections) of a report as findings, most severe first."""
    groups: dict[tuple[Any, ...], tuple[list[str], tuple[Change, ...], Section]] = {}
    for path, changes, sections in files:
        for section in sections:
            mine = sorted(
                (c for c in changes if c.subject == section.subject), key=lambda c: RANK[c.kind]
            )
            key = _key(mine, section)
            groups.setdefault(key, ([], tuple(mine), section))[0].append(path)
    found = [Finding(changes, tuple(paths), section) for paths, changes, section in groups.values()]
    return tuple(sorted(found, key=lambda item: (item.rank, item.subject, item.paths)))


def _span(start: int, stop: int) -> str:
    """A hunk's range as unified diffs write it: first line (from 1) and count."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _hunks(section: Section) -> Iterator[list[tuple[str, int, int, int, int]]]:
    if section.old == section.new:
        return
    yield from _TrimmedMatcher(section.old, section.new).get_grouped_opcodes(_CONTEXT)


_Opcode = tuple[Literal["replace", "delete", "insert", "equal"], int, int, int, int]


class _TrimmedMatcher(difflib.SequenceMatcher[str]):
    """difflib's matcher, run only between the common head and tail: a long history with
    one changed message costs time in the changed part, not quadratic in the whole."""

    def __init__(self, old: Sequence[str], new: Sequence[str]) -> None:
        super().__init__(None, old, new, autojunk=False)
        self.old, self.new = old, new

    def get_opcodes(self) -> list[_Opcode]:
        old, new = self.old, self.new
        head = _common(zip(old, new, strict=False))
        tail = _common(zip(reversed(old[head:]), reversed(new[head:]), strict=False))
        inner = difflib.SequenceMatcher(
            None, old[head : len(old) - tail], new[head : len(new) - tail], autojunk=False
        ).get_opcodes()
        codes: list[_Opcode] = [("equal", 0, head, 0, head)] if head else []
        codes += [(t, i1 + head, i2 + head, j1 + head, j2 + head) for t, i1, i2, j1, j2 in inner]
        if tail:
            codes.append(("equal", len(old) - tail, len(old), len(new) - tail, len(new)))
        return codes


def _common(pairs: Iterable[tuple[str, str]]) -> int:
    count = 0
    for left, right in pairs:
        if left != right:
            break
        count += 1
    return count


def unified(section: Section) -> list[str]:
    """The section's unified diff (hunk headers, then `` ``/``-``/``+`` lines), no file header."""
    old, new = section.old, section.new
    lines: list[str] = []
    for hunk in _hunks(section):
        first, last = hunk[0], hunk[-1]
        lines.append(f"@@ -{_span(first[1], last[2])} +{_span(first[3], last[4])} @@")
        for tag, i1, i2, j1, j2 in hunk:
            if tag == "equal":
                lines += [f" {line}" for line in old[i1:i2]]
                continue
            lines += [f"-{line}" for line in old[i1:i2]]
            lines += [f"+{line}" for line in new[j1:j2]]
    return lines


def side_by_side(section: Section) -> list[SideRow]:
    """The section's diff as rows of two columns, hunks separated by a ``gap`` row."""
    rows: list[SideRow] = []
    for hunk in _hunks(section):
        if rows:
            rows.append(SideRow("gap"))
        for tag, i1, i2, j1, j2 in hunk:
            rows += _side_rows(section, tag, (i1, i2), (j1, j2))
    return rows


def _side_rows(
    section: Section, tag: str, olds: tuple[int, int], news: tuple[int, int]
) -> Iterator[SideRow]:
    old_numbers, new_numbers = range(*olds), range(*news)
    for row in range(max(len(old_numbers), len(new_numbers))):
        i = old_numbers[row] if row < len(old_numbers) else None
        j = new_numbers[row] if row < len(new_numbers) else None
        yield SideRow(
            tag,
            None if i is None else i + 1,
            "" if i is None else section.old[i],
            None if j is None else j + 1,
            "" if j is None else section.new[j],
        )


def cap(lines: Sequence[Any], limit: int) -> tuple[list[Any], int]:
    """The first ``limit`` items and how many were left out."""
    return list(lines[:limit]), max(0, len(lines) - limit)


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _short_line(line: str) -> str:
    extra = len(line) - LINE_CHARACTERS
    if extra <= 0:
        return line
    return f"{line[:LINE_CHARACTERS]} [... {plural(extra, 'more character')}]"


def diff_lines(finding: Finding, limit: int) -> list[str]:
    """The finding's unified diff, at most ``limit`` lines (each cut at LINE_CHARACTERS),
    then "... N more lines"."""
    lines, more = cap(unified(finding.section), limit)
    shown = [_short_line(line) for line in lines]
    return shown + ([f"... {plural(more, 'more line')}"] if more else [])
