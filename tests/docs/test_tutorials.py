"""Each tutorial of docs/tutorials/ runs as written: its files become a project in a
temporary directory and its commands run there in order, with the outcomes the page states
(see tests/docs/pages.py for how a page is read)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.pages import CommandStep, FileStep, follow, read_page, steps

pytest_plugins = ["pytester"]


def _snapshot_names(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.rglob("*.txt"))


def test_a_tutorial_states_an_outcome_for_each_command_that_fails() -> None:
    page = read_page("tutorials/runtime.md")
    commands = [step for step in steps(page) if isinstance(step, CommandStep)]
    files = [step for step in steps(page) if isinstance(step, FileStep)]
    assert [step.path for step in files].count("helpdesk_tools.py") == 2  # the upgrade
    gate = next(step for step in commands if step.command.startswith("hookproof gate"))
    assert gate.exit_code == 1
    assert "FAILED: 2 change(s) of a failing class (BREAKING, SECURITY)" in gate.output


@pytest.mark.slow
def test_the_runtime_tutorial_runs_as_written(pytester: pytest.Pytester) -> None:
    follow(read_page("tutorials/runtime.md"), pytester.path)
    reviewed = pytester.path / "snapshots"
    assert _snapshot_names(reviewed) == [
        "test_final_request_per_role[admin].txt",
        "test_final_request_per_role[guest].txt",
    ]
    guest = next(reviewed.rglob("*[[]guest].txt")).read_text("utf-8")
    assert '"product"' in guest and "Search the help center of one product." in guest
    assert not list(reviewed.rglob("*.pending"))


@pytest.mark.slow
def test_the_langchain_tutorial_runs_as_written(pytester: pytest.Pytester) -> None:
    pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run this")
    follow(read_page("tutorials/langchain.md"), pytester.path)
    reviewed = pytester.path / "snapshots"
    guest = next(reviewed.rglob("*[[]guest].txt")).read_text("utf-8")
    assert "Today is March 02, 2026." in guest
    assert "\n  escalate\n" in guest and "\n  issue_refund\n" not in guest
    report = (pytester.path / "gate.md").read_text("utf-8")
    assert "SECURITY" in report and "escalate" in report
    assert not list(reviewed.rglob("*.pending"))


@pytest.mark.slow
def test_the_deepagents_tutorial_runs_as_written(pytester: pytest.Pytester) -> None:
    pytest.importorskip("deepagents", reason="install hookproof[deepagents] to run this")
    follow(read_page("tutorials/deepagents.md"), pytester.path)
    reviewed = pytester.path / "snapshots"
    researcher = next(reviewed.rglob("*[[]researcher].txt")).read_text("utf-8")
    assert "\nagent: researcher (depth 1)\n" in researcher
    assert "\n  find_order\n" in researcher and "\n  issue_refund\n" not in researcher
    assert "tool issue_refund: registered by agent; removed by RoleFilter" in researcher
    assert not list(reviewed.rglob("*.pending"))
