"""--hookproof-pending and ``hookproof review``, end to end: a downstream suite's prompt and
tools change, the failing run leaves pending snapshots, a person reviews them in a terminal."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.review.terminal import Terminal

PROJECT_TEST = """
from pathlib import Path

import pytest

from hookproof.messages import SystemMessage, UserMessage
from hookproof.models import FinalRequest
from hookproof.tools import ToolSchema

ROOT = Path(__file__).parent


def _tool(name):
    schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    return ToolSchema(name=name, description=f"The {name} tool.", parameters=schema)


def _request(user):
    prompt = (ROOT / "prompt.txt").read_text()
    tools = tuple(_tool(name) for name in (ROOT / "tools.txt").read_text().split())
    return FinalRequest(
        model="fast",
        system_message=SystemMessage(content=prompt),
        messages=(UserMessage(content=user),),
        tools=tools,
    )


@pytest.mark.parametrize("user", ["guest", "admin"])
def test_request(user, hookproof_snapshot):
    assert _request(user) == hookproof_snapshot
"""
OLD_PROMPT = "Be careful.\nCite your sources."
NEW_PROMPT = "Be careful.\nCite every source you use."


def _project(pytester: pytest.Pytester) -> Path:
    pytester.makepyfile(test_app=PROJECT_TEST)
    (pytester.path / "prompt.txt").write_text(OLD_PROMPT)
    (pytester.path / "tools.txt").write_text("read_file export")
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=2)
    return pytester.path / "snapshots" / "test_app"


def _upgrade(pytester: pytest.Pytester) -> None:
    (pytester.path / "prompt.txt").write_text(NEW_PROMPT)
    (pytester.path / "tools.txt").write_text("read_file delete")


def _pending_run(pytester: pytest.Pytester) -> pytest.RunResult:
    _upgrade(pytester)
    result = pytester.runpytest_inprocess("--hookproof-pending")
    result.assert_outcomes(failed=2)
    return result


def _review(pytester: pytest.Pytester, *options: str) -> Terminal:
    return Terminal([sys.executable, "-m", "hookproof", "review", *options], pytester.path)


GUEST, ADMIN = "test_request[guest].txt", "test_request[admin].txt"


def test_a_failing_comparison_writes_the_received_snapshot_as_pending(
    pytester: pytest.Pytester,
) -> None:
    snapshots = _project(pytester)
    reviewed = (snapshots / GUEST).read_text()
    result = _pending_run(pytester)
    pending = snapshots / f"{GUEST}.pending"
    assert (snapshots / GUEST).read_text() == reviewed
    assert "Cite every source you use." in pending.read_text()
    output = result.stdout.str()
    assert f"the received snapshot was written to {pending} (pending)" in output
    assert f"Review it with `hookproof review {snapshots}`" in output
    assert "unused" not in output  # a pending file is not a snapshot of its own


def test_without_the_option_nothing_is_written(pytester: pytest.Pytester) -> None:
    snapshots = _project(pytester)
    _upgrade(pytester)
    pytester.runpytest_inprocess().assert_outcomes(failed=2)
    assert list(snapshots.glob("*.pending")) == []


def test_a_person_accepts_one_and_rejects_the_other_in_a_terminal(
    pytester: pytest.Pytester,
) -> None:
    snapshots = _project(pytester)
    admin_before = (snapshots / ADMIN).read_text()
    _pending_run(pytester)
    guest_proposed = (snapshots / f"{GUEST}.pending").read_text()
    terminal = _review(pytester)
    shown = terminal.expect("accept, reject, skip, or quit? [a/r/s/q] ")
    assert f"[1/2] test_app/{ADMIN}" in shown
    assert shown.index("SECURITY tool delete") < shown.index("BREAKING tool export: removed")
    assert "-| Cite your sources.\n" in shown and "+| Cite every source you use.\n" in shown
    terminal.type("r")
    terminal.expect("-> reject")
    shown = terminal.expect("[a/r/s/q] ")
    assert f"[2/2] test_app/{GUEST}" in shown
    terminal.type("maybe")
    terminal.expect("please answer a (accept), r (reject), s (skip) or q (quit)")
    terminal.type("a")
    terminal.expect("hookproof review: 1 accepted, 1 rejected, 0 skipped, 0 refused; 0 left")
    assert terminal.close() == 0
    assert (snapshots / GUEST).read_text() == guest_proposed
    assert (snapshots / ADMIN).read_text() == admin_before
    assert list(snapshots.glob("*.pending")) == []
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(passed=1, failed=1)
    assert "FAILED test_app.py::test_request[admin]" in result.stdout.str()


def test_skip_and_quit_leave_snapshots_pending_and_exit_1(pytester: pytest.Pytester) -> None:
    snapshots = _project(pytester)
    _pending_run(pytester)
    terminal = _review(pytester, "snapshots")
    terminal.expect("[a/r/s/q] ")
    terminal.type("s")
    terminal.expect("-> skip")
    terminal.expect("[a/r/s/q] ")
    terminal.type("q")
    terminal.expect("0 accepted, 0 rejected, 1 skipped, 0 refused; 2 left pending.")
    assert terminal.close() == 1
    assert len(list(snapshots.glob("*.pending"))) == 2


def test_accept_all_for_scripts_then_the_suite_passes(pytester: pytest.Pytester) -> None:
    snapshots = _project(pytester)
    _pending_run(pytester)
    terminal = _review(pytester, "--accept-all")
    terminal.expect("2 accepted, 0 rejected, 0 skipped, 0 refused; 0 left pending.")
    assert terminal.close() == 0
    assert list(snapshots.glob("*.pending")) == []
    pytester.runpytest_inprocess().assert_outcomes(passed=2)


def test_reject_all_keeps_the_reviewed_snapshots(pytester: pytest.Pytester) -> None:
    snapshots = _project(pytester)
    before = sorted(path.read_text() for path in snapshots.glob("*.txt"))
    _pending_run(pytester)
    terminal = _review(pytester, "--reject-all")
    terminal.expect("0 accepted, 2 rejected")
    assert terminal.close() == 0
    assert sorted(path.read_text() for path in snapshots.glob("*.txt")) == before
    assert list(snapshots.glob("*.pending")) == []


def test_a_new_snapshot_is_pending_until_accepted(pytester: pytest.Pytester) -> None:
    snapshots = _project(pytester)
    (snapshots / GUEST).unlink()
    pytester.runpytest_inprocess("--hookproof-pending").assert_outcomes(passed=1, failed=1)
    terminal = _review(pytester)
    assert "no reviewed file yet: accepting creates it" in terminal.expect("[a/r/s/q] ")
    terminal.type("a")
    assert terminal.close() == 0
    pytester.runpytest_inprocess().assert_outcomes(passed=2)


def test_a_passing_comparison_removes_its_stale_pending_file(pytester: pytest.Pytester) -> None:
    snapshots = _project(pytester)
    stale = snapshots / f"{GUEST}.pending"
    stale.write_text("left over")
    pytester.runpytest_inprocess("--hookproof-pending").assert_outcomes(passed=2)
    assert not stale.exists()


def test_an_unreadable_pending_file_is_never_accepted(pytester: pytest.Pytester) -> None:
    snapshots = _project(pytester)
    reviewed = (snapshots / GUEST).read_text()
    (snapshots / f"{GUEST}.pending").write_text("not a snapshot\n")
    terminal = _review(pytester, "--accept-all")
    assert "cannot be read as a snapshot" in terminal.expect("-> refused")
    terminal.expect("0 accepted, 0 rejected, 0 skipped, 1 refused; 1 left pending.")
    assert terminal.close() == 1
    assert (snapshots / GUEST).read_text() == reviewed


def test_no_pending_snapshots_and_a_missing_directory(pytester: pytest.Pytester) -> None:
    _project(pytester)
    terminal = _review(pytester)
    terminal.expect("hookproof review: no pending snapshots under snapshots.")
    assert terminal.close() == 0
    terminal = _review(pytester, "nowhere")
    terminal.expect("'nowhere' is not a directory")
    assert terminal.close() == 2


def test_a_finding_of_several_alike_changes_is_named_once(tmp_path: Path) -> None:
    import io

    from hookproof.gate.review import review
    from hookproof.messages import AssistantMessage, ToolCall, ToolMessage, UserMessage
    from hookproof.models import FinalRequest
    from hookproof.snapshot import render

    def request(query: str, answer: str) -> str:
        call = ToolCall(name="search", args={"query": query}, id="c1")
        messages = (
            UserMessage(content="hi"),
            AssistantMessage(content="", tool_calls=(call,)),
            ToolMessage(content=answer, tool_call_id="c1", name="search"),
        )
        return render(FinalRequest(model="m", messages=messages))

    reviewed = tmp_path / "test_x.txt"
    reviewed.write_text(request("vpn", "one"))
    (tmp_path / "test_x.txt.pending").write_text(request("vpn client", "two"))
    out = io.StringIO()
    assert review(tmp_path, everything="accept", read=lambda: "", out=out) == 0
    said = out.getvalue()
    assert said.count("REVIEW   messages: lines changed") == 1, said
    assert "+call search" in said and "+| two" in said  # both changed lines are still shown
