"""Every difference between two snapshots is a described change with its class: never an
empty diff for two files that differ (the provenance, a schema shape no rule reads, a file
written by hand), through ``hookproof.snapshot.diff`` and the gate."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof.gate import compare_directories, format_json, format_text
from hookproof.runtime import AgentMiddleware
from hookproof.snapshot import ChangeClass, SnapshotFormatError, ToolView, diff, parse, render
from hookproof.tools import ToolSchema
from tests.snapshot.test_provenance import AddExport, Files, HideSearch, _final, export
from tests.snapshot.test_render_and_diff import _request


class FilesToo(Files):
    """Writes the same prompt section as Files, under another name."""


class HideSearchToo(HideSearch):
    """Hides the same tool as HideSearch, under another name."""


def _described(old: Any, new: Any) -> list[tuple[str, str, str]]:
    return [(c.kind.value, c.subject, c.what) for c in diff(old, new).changes]


# -- provenance: the model receives the same, the layer that put it there changed ------------


class ExportTool(AgentMiddleware):
    """Registers ``export``, which AddExport adds at run time."""

    tools: ClassVar[list[Any]] = [export]


def test_a_tool_registered_by_another_layer_says_by_whom_before_and_now() -> None:
    old, new = _final(AddExport()), _final(ExportTool())
    assert render(old, provenance=False) == render(new, provenance=False)
    assert _described(render(old), render(new)) == [
        ("COSMETIC", "provenance", "tool export added by AddExport, now registered by ExportTool")
    ]


def test_prompt_lines_written_by_another_layer_say_which_lines_and_by_whom() -> None:
    old, new = _final(Files()), _final(FilesToo())
    assert render(old, provenance=False) == render(new, provenance=False)
    changes = diff(render(old), render(new)).changes
    assert [(c.kind, c.subject, c.what, c.before, c.after) for c in changes] == [
        (
            ChangeClass.COSMETIC,
            "provenance",
            "system prompt lines 3-5 from Files, now from FilesToo",
            "Files",
            "FilesToo",
        ),
        (
            ChangeClass.COSMETIC,
            "provenance",
            "tool delete registered by Files, now by FilesToo",
            "registered by Files",
            "registered by FilesToo",
        ),
    ]


def test_a_tool_hidden_on_both_sides_by_another_layer_is_described() -> None:
    old, new = _final(HideSearch()), _final(HideSearchToo())
    assert _described(render(old), render(new)) == [
        (
            "COSMETIC",
            "provenance",
            "tool search registered by agent; removed by HideSearch, now registered by "
            "agent; removed by HideSearchToo",
        )
    ]


def test_a_provenance_change_shows_the_provenance_lines_in_every_gate_format(
    tmp_path: Path,
) -> None:
    for side, final in (("old", _final(Files())), ("new", _final(FilesToo()))):
        (tmp_path / side).mkdir()
        (tmp_path / side / "case.txt").write_text(render(final), encoding="utf-8")
    report = compare_directories(tmp_path / "old", tmp_path / "new")
    assert report.exit_code == 0
    assert report.counts()["COSMETIC"] == 2
    text = format_text(report)
    assert "COSMETIC provenance: system prompt lines 3-5 from Files, now from FilesToo" in text
    assert "-  system 3-5: Files\n" in text.replace("      ", "")
    assert "+  tool delete: registered by FilesToo" in text
    assert '"subject": "provenance"' in format_json(report)


def test_format_1_beside_format_2_of_the_same_request_says_provenance_is_one_sided() -> None:
    final = _final(Files())
    assert _described(render(final, provenance=False), render(final)) == [
        (
            "COSMETIC",
            "provenance",
            "recorded on one side only: the old snapshot has no provenance section (format 1); "
            "the model receives the same",
        )
    ]


# -- tool schemas: shapes the per-parameter rules do not read ---------------------------------


def _with_schema(parameters: dict[str, Any], description: str = "Search.") -> str:
    tool = ToolSchema(name="search", description=description, parameters=parameters)
    return render(_request(tools=(tool,)))


OBJECT = {"type": "object", "properties": {"q": {"type": "string"}, "n": {"type": "integer"}}}


def test_a_reordered_required_list_is_a_review_change() -> None:
    old = _with_schema({**OBJECT, "required": ["q", "n"]})
    new = _with_schema({**OBJECT, "required": ["n", "q"]})
    assert _described(old, new) == [("REVIEW", "tool search", "required list changed")]


def test_a_required_name_no_property_has_is_breaking() -> None:
    old = _with_schema({**OBJECT, "required": ["q"]})
    new = _with_schema({**OBJECT, "required": ["q", "token"]})
    assert _described(old, new) == [("BREAKING", "tool search", "required list changed")]


def test_an_empty_required_list_beside_none_is_described() -> None:
    old, new = _with_schema(dict(OBJECT)), _with_schema({**OBJECT, "required": []})
    assert _described(old, new) == [("REVIEW", "tool search", "required list changed")]


def test_properties_that_stop_being_an_object_are_breaking() -> None:
    old = _with_schema(dict(OBJECT))
    new = _with_schema({"type": "object", "properties": ["q", "n"]})
    assert _described(old, new) == [
        ("BREAKING", "tool search", "parameter 'n' removed"),
        ("BREAKING", "tool search", "parameter 'q' removed"),
        ("BREAKING", "tool search", "properties changed"),
    ]


def test_an_unread_schema_change_is_not_hidden_by_a_described_one() -> None:
    old = _with_schema({**OBJECT, "required": ["q", "n"]})
    new = _with_schema({**OBJECT, "required": ["n", "q"]}, description="Search well.")
    assert _described(old, new) == [
        ("REVIEW", "tool search", "description changed"),
        ("REVIEW", "tool search", "required list changed"),
    ]


def test_a_per_parameter_change_alone_is_not_repeated_as_a_list_change() -> None:
    old = _with_schema({**OBJECT, "required": ["q"]})
    new = _with_schema({**OBJECT, "required": ["q", "n"]})
    assert _described(old, new) == [("BREAKING", "tool search", "parameter 'n' is now required")]


# -- a file written by hand --------------------------------------------------------------------

TEXT = render(_request())


def test_tools_listed_out_of_order_are_a_review_change() -> None:
    head, rest = TEXT.split("  export\n", 1)
    export, search = rest.split("  search\n", 1)
    swapped = f"{head}  search\n{search}  export\n{export}"
    assert _described(TEXT, swapped) == [
        ("REVIEW", "tools", "the same tool names, listed in another order or repeated")
    ]


def test_the_same_request_written_differently_says_where() -> None:
    respaced = TEXT.replace('settings: {"temperature": 0.2}', 'settings: {"temperature":0.2}')
    assert parse(respaced) == parse(TEXT)
    (change,) = diff(TEXT, respaced).changes
    assert (change.kind, change.subject) == (ChangeClass.COSMETIC, "snapshot")
    assert change.what.startswith("the same request written differently, first at line 5")
    assert (change.before, change.after) == (
        'settings: {"temperature": 0.2}',
        'settings: {"temperature":0.2}',
    )


PROVENANCE_TEXT = render(_final(Files(), HideSearch()))
_LINES = PROVENANCE_TEXT.rstrip("\n").split("\n")
_EDITS = st.tuples(
    st.sampled_from(["append", "cut", "delete", "insert", "swap"]),
    st.integers(0, 10_000),
    st.integers(0, 10_000),
    st.text(st.sampled_from(' |"{}[]:,.aqxF0;'), min_size=1, max_size=6),
)


def _edited(lines: list[str], edit: tuple[str, int, int, str]) -> list[str]:
    """One edit by hand, anywhere but the header."""
    action, at, other, text = edit
    lines = list(lines)
    at, other = 1 + at % (len(lines) - 1), 1 + other % (len(lines) - 1)
    if action == "append":
        lines[at] += text
    elif action == "cut":
        lines[at] = lines[at][: -len(text)]
    elif action == "delete":
        del lines[at]
    elif action == "insert":
        lines.insert(at, text)
    else:
        lines[at], lines[other] = lines[other], lines[at]
    return lines


@settings(max_examples=300, deadline=None)
@given(edits=st.lists(_EDITS, min_size=1, max_size=3))
def test_two_readable_snapshots_that_differ_always_have_a_described_change(
    edits: list[tuple[str, int, int, str]],
) -> None:
    lines = _LINES
    for edit in edits:
        lines = _edited(lines, edit)
    edited = "\n".join(lines) + "\n"
    try:
        parse(edited)
    except SnapshotFormatError:
        return  # unreadable files are refused, with their reason, elsewhere
    if edited != PROVENANCE_TEXT:
        assert diff(PROVENANCE_TEXT, edited).changes
        assert diff(edited, PROVENANCE_TEXT).changes


def test_a_difference_no_part_names_is_still_a_change() -> None:
    """Two tools of one name (a view built in code): only the first is compared by name."""
    first = ToolView("a", "Find.", {"type": "object"})
    base = replace(parse(TEXT), tools=(first, ToolView("a", "Other.", {"type": "object"})))
    other = replace(base, tools=(first, ToolView("a", "Else.", {"type": "object"})))
    assert _described(base, other) == [
        (
            "REVIEW",
            "snapshot",
            "changed in a way the semantic diff does not classify (see the text diff)",
        )
    ]
