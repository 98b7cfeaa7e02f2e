"""The diffs a report shows: unified as difflib writes them, side by side, and fast on long
histories."""

from __future__ import annotations

import difflib
import time

import pytest

from hookproof.snapshot.findings import Section, side_by_side, unified

CASES = [
    ((), ("a", "b")),
    (("a", "b"), ()),
    (("a", "b", "c"), ("a", "B", "c")),
    (tuple("abcdefghijklmnop"), tuple("abcXefghijklmnoY")),
]


@pytest.mark.parametrize(("old", "new"), CASES)
def test_unified_is_difflibs_without_the_file_header(
    old: tuple[str, ...], new: tuple[str, ...]
) -> None:
    expected = list(difflib.unified_diff(old, new, lineterm=""))[2:]
    assert unified(Section("messages", old, new)) == expected


@pytest.mark.parametrize(
    ("old", "new"), [*CASES[:3], (("|", "x", "|", "y", "|"), ("|", "y", "|", "x", "|", "z"))]
)
def test_unified_reads_back_to_both_sides(old: tuple[str, ...], new: tuple[str, ...]) -> None:
    """Short sections fit in one hunk's context: its lines are both sides whole."""
    body = [line for line in unified(Section("messages", old, new)) if line[:2] != "@@"]
    assert tuple(line[1:] for line in body if line[0] in " -") == old
    assert tuple(line[1:] for line in body if line[0] in " +") == new


def test_an_unchanged_section_has_no_diff() -> None:
    assert unified(Section("messages", ("a",), ("a",))) == []
    assert side_by_side(Section("messages", ("a",), ("a",))) == []


def test_side_by_side_pairs_replaced_lines_and_marks_gaps() -> None:
    old = tuple(f"line {n}" for n in range(20))
    new = ("changed 0", *old[1:19], "changed 19")
    rows = side_by_side(Section("system prompt", old, new))
    assert (rows[0].tag, rows[0].old_text, rows[0].new_text) == ("replace", "line 0", "changed 0")
    assert [row.tag for row in rows].count("gap") == 1
    last = rows[-1]
    assert (last.old_number, last.new_number, last.new_text) == (20, 20, "changed 19")


def test_one_change_in_a_long_history_of_repeated_lines_is_fast() -> None:
    old = tuple(line for n in range(10_000) for line in ("<user>", f"question {n}", "|"))
    new = (*old[:15_000], "<user>", "inserted", *old[15_000:])
    started = time.perf_counter()
    lines = unified(Section("messages", old, new))
    assert time.perf_counter() - started < 2
    assert sorted(line for line in lines if line[:1] in "+-") == ["+<user>", "+inserted"]
