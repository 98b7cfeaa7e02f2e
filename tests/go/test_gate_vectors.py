"""Python's gate against the shared vectors the Go gate (go/gate_test.go) is checked
against: the stored cases are the generator's, Python still prints and returns what they
hold, and together they cover every class, row kind, verdict and refusal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.go.gate_vectors import FORMATS, all_cases, runs_of, stored_cases

STORED = stored_cases()


def _outputs(format_name: str) -> str:
    return "\n".join(
        case["runs"][format_name]["stdout"] + case["runs"][format_name]["stderr"] for case in STORED
    )


def test_the_stored_cases_are_the_generators() -> None:
    stored = [{key: case[key] for key in ("name", "tree", "args")} for case in STORED]
    assert stored == all_cases(), "regenerate with python -m tests.go.gate_vectors"


@pytest.mark.slow  # about 550 gate runs
def test_python_gives_every_vectors_output() -> None:
    for case in STORED:
        assert runs_of(case) == case["runs"], case["name"]


def test_every_format_and_exit_code_is_covered() -> None:
    for case in STORED:
        assert set(case["runs"]) == set(FORMATS), case["name"]
    codes = {run["code"] for case in STORED for run in case["runs"].values()}
    assert codes == {0, 1, 2}


@pytest.mark.parametrize(
    "row",
    [
        "BREAKING tool book_hotel: removed",
        'SECURITY tool "run shell": now visible to the model',
        "REVIEW   tool search_flights: description changed",
        "COSMETIC tool search_flights: description changed",
        "BREAKING tool search_flights: parameter 'destination' removed",
        "BREAKING tool search_flights: required parameter 'date' added",
        "REVIEW   tool search_flights: optional parameter 'seats' added",
        "BREAKING tool search_flights: parameter 'destination' type changed",
        "REVIEW   tool search_flights: parameter 'destination' description changed",
        "BREAKING tool search_flights: parameter 'destination' is now required",
        "BREAKING tool search_flights: parameter 'origin' is now optional",
        "tool search_flights: properties changed",
        "tool search_flights: required list changed",
        "REVIEW   tool search_flights: schema changed",
        "REVIEW   system prompt: lines changed",
        "REVIEW   system prompt: 2 lines added",
        "REVIEW   system prompt: 2 lines removed",
        "COSMETIC system prompt: 1 line added",
        "COSMETIC system prompt: whitespace changed",
        "REVIEW   messages: message metadata changed",
        "REVIEW   messages: lines changed",
        "REVIEW   model: changed",
        "REVIEW   tool_choice: changed",
        "REVIEW   response_format: changed",
        "REVIEW   settings: changed",
        "REVIEW   agent: now sent by subagent researcher (depth 1)",
        "COSMETIC provenance: system prompt line 3 from PromptMiddleware, now from Other",
        "COSMETIC provenance: tool book_hotel added by HotelMiddleware, now by OtherMiddleware",
        "REVIEW   system prompt: lines changed (from PromptMiddleware)",
        "now visible to the model (registered by agent; no longer removed by Guard)",
        "REVIEW   snapshot: new snapshot (not in the baseline)",
        "BREAKING snapshot: missing from the candidate",
        "in 23 snapshots: ",
        " and 13 more",
        "... 365 more lines",
        "[... 61 more characters]",
    ],
)
def test_the_vectors_hold_each_row_kind(row: str) -> None:
    assert row in _outputs("text")


@pytest.mark.parametrize(
    "shown",
    [
        "**Report cut** at 65,536 characters",
        "<details><summary><b>SECURITY</b>",
        "@\u2060octocat",
        "d\u2060eadbee\u2060fcafe1",
        "&lt;img src=x&gt;",
        "<code>suite/@octocat &lt;b&gt;.txt</code>",
        "````diff",
        " and 3 more</p>",
    ],
)
def test_the_markdown_vectors_show_snapshot_text_inert_and_cut(shown: str) -> None:
    assert shown in _outputs("markdown")


def test_the_json_vectors_parse_and_hold_every_class() -> None:
    reports: list[dict[str, Any]] = [
        json.loads(case["runs"]["json"].get("written") or case["runs"]["json"]["stdout"])
        for case in STORED
        if case["runs"]["json"]["code"] != 2
    ]
    classes = {
        kind for report in reports for finding in report["findings"] for kind in finding["classes"]
    }
    assert classes == {"BREAKING", "SECURITY", "REVIEW", "COSMETIC"}
    assert any(
        report["findings"] and report["findings"][0]["diff_more_lines"] for report in reports
    )


@pytest.mark.parametrize(
    "refusal",
    [
        "is a symbolic link to a missing file",
        "is a directory, not a regular file",
        "is a named pipe (FIFO), not a regular file",
        "is a symbolic link to a directory, not a regular file",
        "resolves to '$ROOT/outside.txt', outside '$ROOT/baseline'",
        "starts with a byte-order mark",
        "is not UTF-8 text (byte",
        "it is empty (0 bytes)",
        "it holds only whitespace",
        "it ends inside its header",
        "it was written in format 9",
        "holds invalid JSON (Unterminated string starting at",
        "holds invalid JSON (Invalid \\escape",
        "holds invalid JSON (Invalid \\uXXXX escape",
        "holds invalid JSON (Extra data",
        "holds invalid JSON (Expecting property name enclosed in double quotes",
        "has invalid parameters (Expecting ',' delimiter",
        "holds invalid JSON (a number has too many digits)",
        "is listed twice",
        "has no line break: truncated?",
        "should be `system FIRST-LAST: origin`",
        "which needs format 2 (its header says 1)",
        "should be `agent: NAME (depth N)`",
        "the baseline directory 'baseline' holds no hookproof snapshot",
        "the candidate directory 'candidate' holds no hookproof snapshot",
        "neither 'baseline' nor 'candidate' holds a hookproof snapshot",
        "the candidate directory 'nowhere' does not exist",
        "--fail-on has unknown classes ['FATAL']",
    ],
)
def test_the_vectors_hold_each_refusal(refusal: str) -> None:
    assert refusal in _outputs("text")
