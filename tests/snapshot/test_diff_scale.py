"""The diff's fast paths give difflib's answers: same hunks, same changes, same wording."""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof._support import line_match as _match
from hookproof.provenance import map_lines
from hookproof.snapshot import _diff, diff
from hookproof.snapshot._request_view import RequestView, ToolView

# Few distinct lines, so runs repeat and tie often: the cases where matchers disagree.
lines = st.lists(st.sampled_from(["<user>", "<assistant>", "|", "| a", "| b", "call x"]))


def plain_matcher(old: Sequence[str], new: Sequence[str]) -> difflib.SequenceMatcher[str]:
    return difflib.SequenceMatcher(a=old, b=new, autojunk=False)


MODES = ["as shipped", "automaton always", "hash collisions"]


@contextmanager
def matcher_mode(mode: str) -> Iterator[None]:
    """The automaton used however small the range, or window hashes that often collide."""
    automaton_from = -1 if mode == "automaton always" else _match._AUTOMATON_FROM
    modulus = 7 if mode == "hash collisions" else _match._MODULUS
    with (
        patch.object(_match, "_AUTOMATON_FROM", automaton_from),
        patch.object(_match, "_MODULUS", modulus),
    ):
        yield


@pytest.mark.parametrize("mode", MODES)
@given(old=lines, new=lines)
def test_hunks_are_difflibs(mode: str, old: list[str], new: list[str]) -> None:
    with matcher_mode(mode):
        fast = _match.LineMatcher(old, new).get_opcodes()
    assert fast == plain_matcher(old, new).get_opcodes()


@given(old=lines, new=lines)
def test_matching_blocks_are_difflibs(old: list[str], new: list[str]) -> None:
    fast = _match.LineMatcher(old, new).get_matching_blocks()
    assert fast == plain_matcher(old, new).get_matching_blocks()


@given(source=lines, shown=lines, layers=st.integers(1, 3))
def test_provenance_maps_lines_as_with_difflib(
    source: list[str], shown: list[str], layers: int
) -> None:
    """Provenance follows a prompt's lines with the fast matcher; with difflib's own (the
    old path) every shown line keeps the same origin."""
    origins = [f"layer {index % layers}" for index in range(len(source))]
    with patch.object(_match, "LineMatcher", plain_matcher):
        expected = map_lines(source, origins, shown)
    assert map_lines(source, origins, shown) == expected


@given(
    old=st.text("ab", max_size=40),
    new=st.text("ab", max_size=40),
    cut=st.tuples(*[st.integers(0, 40)] * 4),
)
def test_longest_run_in_any_ranges_is_difflibs(
    old: str, new: str, cut: tuple[int, int, int, int]
) -> None:
    alo, ahi = sorted((min(cut[0], len(old)), min(cut[1], len(old))))
    blo, bhi = sorted((min(cut[2], len(new)), min(cut[3], len(new))))
    fast = _match.longest_common_run(old, alo, ahi, new, blo, bhi)
    assert fast == tuple(plain_matcher(old, new).find_longest_match(alo, ahi, blo, bhi))


def tool(name: str, description: str, parameters: dict[str, Any]) -> ToolView:
    return ToolView(name, description, parameters)


tools = st.lists(
    st.builds(
        tool,
        st.sampled_from(["a", "b", "c"]),
        st.sampled_from(["Find.", "Find. ", "Fetch."]),
        st.sampled_from(
            [
                {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
                {"type": "object", "properties": {"q": {"type": "integer"}}},
                {"type": "object", "properties": {}},
            ]
        ),
    ),
    max_size=5,
)


def request_view(system: list[str], messages: list[str], tool_views: list[ToolView]) -> RequestView:
    return RequestView(
        model="m",
        tool_choice=None,
        response_format=None,
        settings={},
        system=tuple(system),
        messages=tuple(messages),
        tools=tuple(tool_views),
    )


def reference_diff(old: RequestView, new: RequestView) -> _diff.SnapshotDiff:
    """The diff as it was: difflib's matcher, each tool found by RequestView.tool(name)."""

    def by_name(views: Sequence[ToolView]) -> dict[str, ToolView]:
        return {item.name: next(t for t in views if t.name == item.name) for item in views}

    with (
        patch.object(_diff, "LineMatcher", plain_matcher),
        patch.object(_diff, "_by_name", by_name),
    ):
        return diff(old, new)


@pytest.mark.parametrize("mode", MODES)
@given(
    old=st.builds(request_view, lines, lines, tools),
    new=st.builds(request_view, lines, lines, tools),
)
def test_every_change_is_the_reference_diffs(mode: str, old: RequestView, new: RequestView) -> None:
    with matcher_mode(mode):
        fast = diff(old, new)
    assert fast == reference_diff(old, new)


def test_a_repeated_tool_name_is_compared_by_its_first_tool() -> None:
    first = tool("a", "Find.", {"type": "object", "properties": {}})
    second = tool("a", "Other.", {"type": "object", "properties": {}})
    changes = diff(request_view([], [], [first, second]), request_view([], [], [second])).changes
    assert [(c.kind.value, c.subject, c.what) for c in changes] == [
        ("REVIEW", "tool a", "description changed"),
        ("REVIEW", "tools", "the same tool names, listed in another order or repeated"),
    ]


def test_a_long_history_with_repeated_lines_diffs_hunk_by_hunk() -> None:
    old = [line for n in range(2_000) for line in ("<user>", f"| question {n}", "|")]
    new = list(old)
    new[3 * 500 + 1] = "| question 500 (edited)"
    del new[3 * 1500 : 3 * 1500 + 3]
    changes = diff(request_view([], old, []), request_view([], new, [])).changes
    assert [(c.kind.value, c.what, c.before, c.after) for c in changes] == [
        ("REVIEW", "lines changed", "| question 500", "| question 500 (edited)"),
        ("REVIEW", "3 lines removed", "| question 1500\n|\n<user>", None),
    ]
