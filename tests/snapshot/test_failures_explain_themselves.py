"""A failing ``hookproof_snapshot`` comparison always says what differs and what to do: a
provenance change names the layers, an empty, blank or truncated reviewed file says so, and
never "no semantic diff" for two texts that differ."""

from __future__ import annotations

import pytest

from tests.snapshot.test_plugin import _baseline, _snapshot


def _fails_with(pytester: pytest.Pytester, edit: str, replacement: str) -> str:
    """The failure output after replacing ``edit`` in the reviewed file."""
    _baseline(pytester)
    path = _snapshot(pytester)
    text = path.read_text(encoding="utf-8")
    assert edit in text
    path.write_text(text.replace(edit, replacement, 1), encoding="utf-8")
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "no semantic diff" not in output
    return output


def test_a_tool_registered_by_another_layer_names_both(pytester: pytest.Pytester) -> None:
    output = _fails_with(
        pytester, "tool search: registered by agent", "tool search: registered by Catalog"
    )
    assert "COSMETIC provenance: tool search registered by Catalog, now by agent" in output
    assert "-  tool search: registered by Catalog" in output


def test_prompt_lines_written_by_another_layer_name_both(pytester: pytest.Pytester) -> None:
    output = _fails_with(pytester, "system 1: agent", "system 1: PromptMiddleware")
    assert "COSMETIC provenance: system prompt line 1 from PromptMiddleware, now from agent" in (
        output
    )


def test_the_same_request_written_by_hand_says_where(pytester: pytest.Pytester) -> None:
    output = _fails_with(pytester, "settings: {}", "settings: { }")
    assert "COSMETIC snapshot: the same request written differently, first at line 5" in output


def _reviewed_as(pytester: pytest.Pytester, content: str) -> str:
    _baseline(pytester)
    _snapshot(pytester).write_text(content, encoding="utf-8")
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "its first line is" not in output
    assert "no semantic diff" not in output
    assert "pytest --snapshot-update" in output
    return output


def test_an_empty_reviewed_file_says_it_is_empty(pytester: pytest.Pytester) -> None:
    output = _reviewed_as(pytester, "")
    assert "cannot be compared: it is empty (0 bytes), so it holds no reviewed request" in output


def test_a_blank_reviewed_file_says_it_holds_only_whitespace(pytester: pytest.Pytester) -> None:
    output = _reviewed_as(pytester, "\n  \n\n")
    assert "it holds only whitespace (5 characters), no reviewed request" in output


def test_a_reviewed_file_cut_in_its_header_says_it_is_truncated(
    pytester: pytest.Pytester,
) -> None:
    output = _reviewed_as(pytester, "hookproof final request, for")
    assert "it ends inside its header ('hookproof final request, for'): it is truncated" in output


def test_a_reviewed_file_cut_after_its_header_says_it_is_truncated(
    pytester: pytest.Pytester,
) -> None:
    _baseline(pytester)
    path = _snapshot(pytester)
    path.write_text(path.read_text(encoding="utf-8")[:120], encoding="utf-8")
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "no semantic diff" not in output
    assert "hookproof: the reviewed snapshot cannot be read: it ends after line" in output
    assert "(is it truncated?). Regenerate it with `pytest --snapshot-update`" in output
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    pytester.runpytest_inprocess().assert_outcomes(passed=1)
