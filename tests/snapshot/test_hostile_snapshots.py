"""Hostile snapshot text: ``parse`` refuses anything render could not have written, with a
SnapshotFormatError naming the problem and its line, never a raw exception or a hang.

This module grows with each new reader of snapshot text: add the input that broke it here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof.errors import SnapshotFormatError, UsageError
from hookproof.gate import compare_directories
from hookproof.snapshot import parse, render
from tests.snapshot.test_render_and_diff import _request, _schema


def _two_tools() -> str:
    return render(_request(tools=(_schema("alpha"), _schema("beta"))))


def _line_of(text: str, line: str) -> int:
    return text.split("\n").index(line) + 1


def test_a_tool_listed_twice_is_refused_naming_it_and_both_lines() -> None:
    text = _two_tools().replace("\n  beta\n", "\n  alpha\n")
    first = _line_of(text, "  alpha")
    second = text.split("\n").index("  alpha", first) + 1
    with pytest.raises(SnapshotFormatError) as caught:
        parse(text, source="snaps/t.txt")
    assert caught.value.problem == f"tool 'alpha' is listed twice (lines {first} and {second})"
    assert str(caught.value).startswith("hookproof: snaps/t.txt is not a readable hookproof")
    assert "--snapshot-update" in str(caught.value)


def test_the_gate_reports_a_snapshot_with_a_repeated_tool_as_unreadable(tmp_path: Path) -> None:
    for side, text in (
        ("old", _two_tools()),
        ("new", _two_tools().replace("  beta\n", "  alpha\n")),
    ):
        (tmp_path / side).mkdir()
        (tmp_path / side / "t.txt").write_text(text, encoding="utf-8", newline="\n")
    with pytest.raises(ValueError, match=r"t\.txt: tool 'alpha' is listed twice"):
        compare_directories(tmp_path / "old", tmp_path / "new")


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            ("response_format: null", f"response_format: {DEEP}"),
            "response_format: holds invalid JSON (nested too deeply)",
        ),
        (
            ("response_format: null", "response_format: " + "9" * 5000),
            "response_format: holds invalid JSON (a number has too many digits)",
        ),
        (('    | {\n    |   "properties"', f"    | {DEEP}\n    | {{"), "invalid parameters"),
        (("tools: 2", "tools: \u0662"), "the tool count '\u0662' is not a number"),
        (("tools: 2", "tools: 99999999999999999999"), "is it truncated?"),
        (("\n  beta\n", "\n  \n"), "has no name"),
        (("tools: 2", "tools: " + "9" * 5000), "is too large"),
    ],
    ids=[
        "deep-json",
        "huge-int",
        "deep-parameters",
        "non-ascii-digit",
        "huge-count",
        "no-name",
        "count-past-int-limit",
    ],
)
def test_hostile_text_is_a_format_error(change: tuple[str, str], problem: str) -> None:
    text = _two_tools()
    assert change[0] in text
    with pytest.raises(SnapshotFormatError, match="Regenerate it") as caught:
        parse(text.replace(change[0], change[1], 1))
    assert problem in caught.value.problem


@pytest.mark.parametrize("value", [None, b"hookproof final request, format 1\n", 5])
def test_parse_takes_text_only(value: object) -> None:
    with pytest.raises(UsageError, match="parse takes the snapshot's text"):
        parse(value)  # type: ignore[arg-type]


# -- a corpus: any edit of a snapshot parses or is a format error, nothing else -------------


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_any_edit_of_a_snapshot_parses_or_is_a_format_error(data: st.DataObject) -> None:
    text = _two_tools()
    start = data.draw(st.integers(0, len(text)))
    cut = data.draw(st.integers(0, 40))
    insert = data.draw(
        st.text(max_size=12) | st.sampled_from(["\n  alpha\n", "[" * 5000, "9" * 5000])
    )
    try:
        parse(text[:start] + insert + text[start + cut :])
    except SnapshotFormatError as error:
        assert error.problem  # noqa: PT017
