"""Each tutorial of docs/tutorials/ runs as written: its files become a project in a
temporary directory and its commands run there in order, with the outcomes the page states
(see tests/docs/pages.py for how a page is read)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.docs.pages import CommandStep, FileStep, follow, read_page, steps
from tests.go.toolchain import GO_MODULE, go_binary


def _snapshot_names(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.rglob("*.txt"))


def test_the_runtime_tutorial_reads_as_files_and_commands_with_outcomes() -> None:
    page = read_page("tutorials/runtime.md")
    commands = [step for step in steps(page) if isinstance(step, CommandStep)]
    files = [step for step in steps(page) if isinstance(step, FileStep)]
    assert [step.path for step in files].count("helpdesk_tools.py") == 2  # the upgrade
    gate = next(step for step in commands if step.command.startswith("hookproof gate"))
    assert gate.exit_code == 1
    assert "FAILED: 2 change(s) of a failing class (BREAKING, SECURITY)" in gate.output


@pytest.mark.slow
def test_the_runtime_tutorial_runs_as_written(tmp_path: Path) -> None:
    follow(read_page("tutorials/runtime.md"), tmp_path)
    reviewed = tmp_path / "snapshots"
    assert _snapshot_names(reviewed) == [
        "test_final_request_per_role[admin].txt",
        "test_final_request_per_role[guest].txt",
    ]
    guest = next(reviewed.rglob("*[[]guest].txt")).read_text("utf-8")
    assert '"product"' in guest and "Search the help center of one product." in guest
    assert not list(reviewed.rglob("*.pending"))


@pytest.mark.slow
def test_the_langchain_tutorial_runs_as_written(tmp_path: Path) -> None:
    pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run this")
    follow(read_page("tutorials/langchain.md"), tmp_path)
    reviewed = tmp_path / "snapshots"
    guest = next(reviewed.rglob("*[[]guest].txt")).read_text("utf-8")
    assert "Today is March 02, 2026." in guest
    assert "\n  escalate\n" in guest and "\n  issue_refund\n" not in guest
    report = (tmp_path / "gate.md").read_text("utf-8")
    assert "SECURITY" in report and "escalate" in report
    assert not list(reviewed.rglob("*.pending"))


@pytest.mark.slow
def test_the_deepagents_tutorial_runs_as_written(tmp_path: Path) -> None:
    pytest.importorskip("deepagents", reason="install hookproof[deepagents] to run this")
    follow(read_page("tutorials/deepagents.md"), tmp_path)
    reviewed = tmp_path / "snapshots"
    researcher = next(reviewed.rglob("*[[]researcher].txt")).read_text("utf-8")
    assert "\nagent: researcher (depth 1)\n" in researcher
    assert "\n  find_order\n" in researcher and "\n  issue_refund\n" not in researcher
    assert "tool issue_refund: registered by agent; removed by RoleFilter" in researcher
    assert not list(reviewed.rglob("*.pending"))


@pytest.mark.slow
def test_the_eino_go_tutorial_runs_as_written(tmp_path: Path) -> None:
    go = go_binary()
    (tmp_path / "hookproof").symlink_to(GO_MODULE.parent)  # the checkout the page clones
    project = tmp_path / "tripdesk"
    page = read_page("tutorials/eino-go.md")
    follow(page, project)
    unformatted = subprocess.run(
        [str(Path(go).with_name("gofmt")), "-l", "."],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    assert unformatted.stdout == "", f"the page's Go is not gofmt-formatted: {unformatted.stdout}"
    guest = (project / "snapshots/TestFinalRequest/guest/final_request.txt").read_text("utf-8")
    assert (
        '"days"' in guest
        and "tool cancel_booking: registered by agent; removed by StaffOnly" in guest
    )
    assert not (project / "candidate").exists()
