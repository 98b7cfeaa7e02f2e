"""Snapshot format 3: a subagent's request names it in one ``agent:`` line, read back as the
request's sender; a main agent's request is written exactly as before; a file reviewed in an
older format keeps passing and ``--snapshot-update`` adds the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookproof.errors import SnapshotFormatError
from hookproof.models import FinalRequest, Sender
from hookproof.snapshot import FORMAT_VERSION, diff, parse, render
from hookproof.snapshot._render import as_written_in
from hookproof.tools import ToolSchema

pytest_plugins = ["pytester"]


def _request(sender: Sender | None) -> FinalRequest:
    tool = ToolSchema(name="lookup", description="Search.", parameters={"type": "object"})
    return FinalRequest(model="m", tools=(tool,)).with_sender(sender)


def test_a_subagents_request_is_format_3_with_one_agent_line() -> None:
    text = render(_request(Sender("researcher", 1)))
    assert FORMAT_VERSION == 3
    assert text.startswith(
        'hookproof final request, format 3\nmodel: "m"\nagent: researcher (depth 1)\n'
    )
    assert text.endswith("\nprovenance:\n  (none)\n")  # always closed, so a cut file shows
    assert parse(text).sender == Sender("researcher", 1) and parse(text).provenance is None


def test_a_main_agents_request_is_written_as_before() -> None:
    plain = render(_request(None))
    assert render(_request(Sender("support", 0))) == plain
    assert plain.startswith("hookproof final request, format 1\n") and "agent:" not in plain


@pytest.mark.parametrize(
    ("name", "line"),
    [
        (None, "(unnamed) (depth 2)"),
        ("my agent", '"my agent" (depth 2)'),
        ("(unnamed)", '"(unnamed)" (depth 2)'),
        ("two\nlines", '"two\\nlines" (depth 2)'),
        ('"quoted', '"\\"quoted" (depth 2)'),
        ("x (depth 3)", '"x (depth 3)" (depth 2)'),
    ],
)
def test_every_name_reads_back_from_its_one_line(name: str | None, line: str) -> None:
    text = render(_request(Sender(name, 2)))
    assert f"\nagent: {line}\n" in text
    assert parse(text).sender == Sender(name, 2)


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("agent: researcher", "should be `agent: NAME (depth N)`"),
        ("agent: researcher (depth 0)", "should be `agent: NAME (depth N)`, N from 1"),
        ('agent: "researcher (depth 1)', "badly quoted name"),
        ('agent: "12" (depth 1)', None),
    ],
)
def test_a_bad_agent_line_is_a_format_error(line: str, problem: str | None) -> None:
    text = render(_request(Sender("researcher", 1))).replace("agent: researcher (depth 1)", line)
    if problem is None:  # a quoted name is a name, digits too
        assert parse(text).sender == Sender("12", 1)
        return
    with pytest.raises(SnapshotFormatError, match="Regenerate it") as raised:
        parse(text)
    assert problem in str(raised.value)


def test_a_format_3_file_cut_before_its_provenance_is_truncated() -> None:
    text = render(_request(Sender("researcher", 1)))
    cut = text[: text.index("\nprovenance:")]
    with pytest.raises(SnapshotFormatError, match="truncated"):
        parse(cut)


def test_a_later_format_names_the_formats_this_hookproof_reads() -> None:
    text = render(_request(Sender("researcher", 1))).replace("format 3", "format 4", 1)
    with pytest.raises(SnapshotFormatError, match="reads formats 1, 2 and 3"):
        parse(text)


def test_older_formats_write_the_same_request_without_what_they_cannot_say() -> None:
    sent = render(_request(Sender("researcher", 1)))
    assert as_written_in(sent, 1) == render(_request(None))
    assert as_written_in(sent, 2) is None  # format 2 always has provenance; this has none
    assert as_written_in(sent, 3) == sent


def test_the_diff_names_a_request_now_sent_by_the_main_agent() -> None:
    (change,) = diff(render(_request(Sender("researcher", 1))), render(_request(None))).changes
    assert (change.kind.value, change.subject) == ("REVIEW", "agent")
    assert change.what == "now sent by the main agent"
    assert (change.before, change.after) == ("subagent researcher (depth 1)", "the main agent")


def test_a_cassette_matches_a_subagents_request_without_its_sender() -> None:
    from pathlib import Path

    from hookproof.recording import Cassette

    cassette = Cassette(Path("unused.json"))
    sent = _request(Sender("researcher", 1))
    assert cassette.request_text(sent) == cassette.request_text(sent.with_sender(None))


SUBAGENT_TEST = """
from pathlib import Path

import pytest
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.runtime import create_agent, tool

ROUTE = "researcher"


def app(model):
    agents = {n: create_agent(model, [], name=n, system_prompt="Look it up.")
              for n in ("researcher", "reviewer")}

    @tool
    def delegate(question: str) -> str:
        \"\"\"Hand a question to the researcher.\"\"\"
        return agents[ROUTE].invoke({"messages": [("user", question)]}).text

    return create_agent(model, [delegate], name="support")


@pytest.mark.hookproof(script=[call("delegate", {"question": "q"}), "found", "done"])
def test_subagent(recording_model, hookproof_snapshot):
    app(recording_model).invoke({"messages": [("user", "hi")]})
    assert recording_model.first(depth=1) == hookproof_snapshot
"""


def test_the_fixture_catches_the_wrong_subagent_and_keeps_older_files_passing(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini("[pytest]\nhookproof_snapshot_dir = snapshots\n")
    pytester.makepyfile(test_app=SUBAGENT_TEST)
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    path = next((pytester.path / "snapshots").rglob("*.txt"))
    written = path.read_text(encoding="utf-8")
    assert written.startswith("hookproof final request, format 3\n")
    assert "\nagent: researcher (depth 1)\n" in written
    pytester.makepyfile(
        test_app=SUBAGENT_TEST.replace('ROUTE = "researcher"', 'ROUTE = "reviewer"')
    )
    failed = pytester.runpytest_inprocess()
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(["*REVIEW*agent: now sent by subagent reviewer (depth 1)*"])
    pytester.makepyfile(test_app=SUBAGENT_TEST)
    older = as_written_in(written, 2)
    assert older is not None and "agent:" not in older
    path.write_text(older, encoding="utf-8")  # reviewed before format 3
    pytester.runpytest_inprocess().assert_outcomes(passed=1)
    assert path.read_text(encoding="utf-8") == older
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    assert path.read_text(encoding="utf-8") == written  # the update names the subagent


def test_the_gate_reports_a_request_sent_by_another_subagent(tmp_path: Path) -> None:
    from hookproof.gate import compare_directories, format_json, format_text

    for side, name in (("old", "researcher"), ("new", "reviewer")):
        (tmp_path / side).mkdir()
        text = render(_request(Sender(name, 1)))
        (tmp_path / side / "test_subagent.txt").write_text(text, encoding="utf-8")
    report = compare_directories(tmp_path / "old", tmp_path / "new")
    assert report.counts()["REVIEW"] == 1
    assert "agent: now sent by subagent reviewer (depth 1)" in format_text(report)
    assert '"subject": "agent"' in format_json(report)
