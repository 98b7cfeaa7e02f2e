"""Rendering, parsing, hashing and the semantic diff of final requests."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof.messages import AssistantMessage, SystemMessage, TextBlock, ToolCall, ToolMessage
from hookproof.models import FinalRequest
from hookproof.snapshot import (
    ChangeClass,
    SnapshotFormatError,
    content_hash,
    diff,
    parse,
    regex,
    render,
    view,
)
from hookproof.tools import ToolSchema


def _schema(name: str, description: str = "Do it.", **properties: Any) -> ToolSchema:
    required = [key for key, value in properties.items() if not value.pop("optional", False)]
    params = {"type": "object", "properties": properties, "required": required}
    return ToolSchema(name=name, description=description, parameters=params)


def _request(**changes: Any) -> FinalRequest:
    values: dict[str, Any] = {
        "model": "fast",
        "system_message": SystemMessage(
            content=[
                TextBlock(
                    text="You are careful.\n\nCite sources.", cache_control={"type": "ephemeral"}
                ),
                "Second block",
            ],
            id="sys-7",
            additional_kwargs={"k": 1},
        ),
        "messages": (
            SystemMessage(content="ignored"),
            AssistantMessage(
                content="", tool_calls=[ToolCall(name="search", args={"q": "x"}, id="abc")]
            ),
            ToolMessage(content="run 2026-11-29T10:00:00Z in /tmp/x/y", tool_call_id="abc"),
        )[1:],
        "tools": (
            _schema("search", q={"type": "string"}),
            _schema("export", customer={"type": "string"}),
        ),
        "tool_choice": "auto",
        "model_settings": {"temperature": 0.2},
    }
    values.update(changes)
    return FinalRequest(**values)


def test_render_is_readable_sorted_and_normalised() -> None:
    text = render(_request())
    assert text.startswith('hookproof final request, format 1\nmodel: "fast"\n')
    assert '  [text] {"cache_control": {"type": "ephemeral"}}\n  | You are careful.\n  |\n' in text
    assert '  <metadata> {"additional_kwargs": {"k": 1}, "id": "<id-0>"}\n' in text
    assert '  call search <call-0> {"q": "x"}\n' in text
    assert "| run <timestamp-0> in <tmp-path-0>\n" in text
    assert text.index("  export\n") < text.index("  search\n")


def test_parse_inverts_render() -> None:
    request = _request()
    assert parse(render(request)) == view(request)


@given(
    description=st.text(alphabet=st.characters(blacklist_categories=["Cs", "Cc"]), max_size=40),
    prompt=st.lists(st.text(max_size=20).map(lambda s: s.replace("\r", "")), max_size=4),
    settings=st.dictionaries(st.sampled_from(["a", "b", "temperature"]), st.integers()),
)
def test_parse_inverts_render_for_any_text(
    description: str, prompt: list[str], settings: dict[str, int]
) -> None:
    request = _request(
        system_message=SystemMessage(content=["\n".join(prompt)] if prompt else []),
        tools=(_schema("t", description, x={"type": "integer"}),),
        model_settings=settings,
    )
    assert parse(render(request)) == view(request)


def test_custom_matchers_and_ids_kept() -> None:
    text = render(_request(), matchers=[regex(r"Cite \w+", "rule")], normalise_ids=False)
    assert "| <rule-0>." in text
    assert '"id": "sys-7"' in text
    assert "<timestamp" not in text


def test_content_hash_is_stable_across_processes_and_hash_seeds() -> None:
    code = (
        "from tests.snapshot.test_render_and_diff import _request;"
        "from hookproof.snapshot import content_hash;"
        "print(content_hash(_request()))"
    )
    hashes = {
        subprocess.check_output(
            [sys.executable, "-c", code], text=True, env={"PYTHONHASHSEED": seed, "PATH": ""}
        ).strip()
        for seed in ("0", "1", "99")
    }
    assert hashes == {content_hash(_request())}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("hello\n", "first line"),
        ("hookproof final request, format 0\n", "format 0"),
        ("hookproof final request, format 1\nmodel: {broken\n", "invalid JSON"),
    ],
)
def test_unreadable_snapshots_say_to_regenerate(text: str, problem: str) -> None:
    with pytest.raises(SnapshotFormatError, match=rf"{problem}.*--snapshot-update"):
        parse(text, source="x.txt")


def _kinds(old: FinalRequest, new: FinalRequest) -> list[tuple[str, str, str]]:
    return [(c.kind.value, c.subject, c.what) for c in diff(old, new).changes]


def test_tool_removed_is_breaking_and_added_is_security() -> None:
    old = _request()
    assert _kinds(old, _request(tools=old.tools[:1])) == [("BREAKING", "tool export", "removed")]
    wider = _request(tools=(*old.tools, _schema("delete_all")))
    assert _kinds(old, wider) == [("SECURITY", "tool delete_all", "now visible to the model")]


@pytest.mark.parametrize(
    ("new_search", "expected"),
    [
        (_schema("search", "Do it now.", q={"type": "string"}), ("REVIEW", "description changed")),
        (_schema("search", "Do  it.\n", q={"type": "string"}), ("COSMETIC", "description changed")),
        (_schema("search", q={"type": "integer"}), ("BREAKING", "parameter 'q' type changed")),
        (
            _schema("search", q={"type": "string", "optional": True}),
            ("BREAKING", "parameter 'q' is now optional"),
        ),
        (_schema("search"), ("BREAKING", "parameter 'q' removed")),
        (
            _schema("search", q={"type": "string"}, n={"type": "integer"}),
            ("BREAKING", "required parameter 'n' added"),
        ),
        (
            _schema("search", q={"type": "string"}, n={"type": "integer", "optional": True}),
            ("REVIEW", "optional parameter 'n' added"),
        ),
        (
            _schema("search", q={"type": "string", "description": "the query"}),
            ("REVIEW", "parameter 'q' description changed"),
        ),
    ],
)
def test_parameter_changes_are_classified(
    new_search: ToolSchema, expected: tuple[str, str]
) -> None:
    old = _request()
    new = _request(tools=(old.tools[1], new_search))
    assert [(c.kind.value, c.what) for c in diff(old, new).changes] == [expected]


def test_prompt_settings_and_choice_changes_are_review_or_cosmetic() -> None:
    old = _request()
    system = old.system_message
    assert system is not None
    edited = system.model_copy(update={"content": [*system.content, "New rule."]})
    reworded = system.model_copy(update={"content": [system.content[0], "Second   block"]})
    assert _kinds(old, _request(system_message=edited)) == [
        ("REVIEW", "system prompt", "2 lines added")
    ]
    assert _kinds(old, _request(system_message=reworded)) == [
        ("COSMETIC", "system prompt", "whitespace changed")
    ]
    changed = diff(old, _request(tool_choice="any", model_settings={"temperature": 0.9}))
    assert [(c.kind, c.subject) for c in changed.changes] == [
        (ChangeClass.REVIEW, "tool_choice"),
        (ChangeClass.REVIEW, "settings"),
    ]


def test_diff_orders_changes_by_severity_and_reads_snapshot_texts() -> None:
    old = _request()
    new = _request(tools=(_schema("delete_all"), old.tools[0]), tool_choice="any")
    changes = diff(render(old), render(new))
    assert [c.kind for c in changes.changes] == [
        ChangeClass.BREAKING,
        ChangeClass.SECURITY,
        ChangeClass.REVIEW,
    ]
    assert diff(old, old).is_empty


def test_odd_text_round_trips_through_a_file(tmp_path: Any) -> None:
    odd = _request(
        system_message=SystemMessage(content="line one\r\nline two"),
        tools=(_schema("weird name", "desc\r\nwith CR", q={"type": "string"}),),
    )
    path = tmp_path / "snap.txt"
    path.write_text(render(odd), encoding="utf-8", newline="\n")
    assert parse(path.read_text(encoding="utf-8")) == view(odd)
    assert "| line one\\r" in render(odd)


def test_empty_system_message_differs_from_none() -> None:
    empty = _request(system_message=SystemMessage(content=""))
    none = _request(system_message=None)
    assert render(empty) != render(none)
    assert [c.subject for c in diff(empty, none).changes] == ["system prompt"]


def test_nested_description_change_is_review_and_blank_lines_are_cosmetic() -> None:
    nested = {"type": "object", "properties": {"x": {"type": "string"}}}
    described = {"type": "object", "properties": {"x": {"type": "string", "description": "an x"}}}
    old = _request(tools=(_schema("t", q={"type": "array", "items": nested}),))
    new = _request(tools=(_schema("t", q={"type": "array", "items": described}),))
    assert [(c.kind.value, c.what) for c in diff(old, new).changes] == [
        ("REVIEW", "parameter 'q' description changed")
    ]
    system = SystemMessage(content="Rule one.")
    spaced = SystemMessage(content="Rule one.\n")
    changes = diff(_request(system_message=system), _request(system_message=spaced)).changes
    assert [c.kind.value for c in changes] == ["COSMETIC"]


def test_a_change_to_message_headers_alone_reads_as_metadata() -> None:
    """An upgrade that stamps ids into every message reads as metadata, not as new text."""
    said = AssistantMessage(content="On it.")
    stamped = said.model_copy(update={"additional_kwargs": {"msg_id": "m1"}})
    reworded = stamped.model_copy(update={"content": [TextBlock(text="Working on it.")]})
    before = _request(messages=(said,))
    assert diff(before, _request(messages=(stamped,))).format() == (
        "REVIEW   messages: message metadata changed"
    )
    assert diff(before, _request(messages=(reworded,))).format() == (
        "REVIEW   messages: lines changed"
    )
