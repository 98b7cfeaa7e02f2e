"""Unused snapshots: those of tests that did not run are kept, those no test asserts are not.

A test module skipped at import (``pytest.importorskip`` when an optional framework is not
installed) yields no test, yet its snapshots are not unused: the Quick start's ``pytest`` must pass
on a machine without the extras. A test that ran and no longer asserts its snapshot, or a
deleted test module, still leaves an unused snapshot, reported and removed as syrupy does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SNAPSHOT_TEST = """
import pytest
from hookproof.runtime import create_agent
{preamble}

@pytest.mark.hookproof(script=["ok"])
def test_request(recording_model, hookproof_snapshot):
    create_agent(recording_model, system_prompt="{name}").invoke({{"messages": [("user", "hi")]}})
    {assertion}
"""
ASSERTION = "assert recording_model.last == hookproof_snapshot"
SKIPS = {
    "importorskip": 'pytest.importorskip("hookproof_no_such_framework")',
    "module-skip": 'pytest.skip("framework not installed", allow_module_level=True)',
}
XDIST = [
    pytest.param([], id="one-process"),
    pytest.param(["-n", "2"], id="xdist", marks=pytest.mark.slow),
]


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """In this process, except under xdist: its controller then gets a process of its own."""
    if "-n" in args:
        return pytester.runpytest_subprocess(*args)
    return pytester.runpytest_inprocess(*args)


def _module(pytester: pytest.Pytester, name: str, preamble: str = "", asserts: bool = True) -> None:
    source = SNAPSHOT_TEST.format(
        preamble=preamble, name=name, assertion=ASSERTION if asserts else "pass"
    )
    pytester.makepyfile(**{name: source})


def _snapshot(pytester: pytest.Pytester, module: str) -> Path:
    return pytester.path / "snapshots" / module / "test_request.txt"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """Two modules with one snapshot each, both recorded (tests/conftest.py keeps the outer
    run's xdist variables out: with them, syrupy would never judge unused snapshots)."""
    _module(pytester, "test_core")
    _module(pytester, "test_framework")
    _run(pytester, "--snapshot-update").assert_outcomes(passed=2)
    assert _snapshot(pytester, "test_framework").is_file()
    return pytester


def _assert_kept(pytester: pytest.Pytester, *args: str, skipped: int) -> None:
    result = _run(pytester, *args)
    result.assert_outcomes(passed=1, skipped=skipped)
    assert result.ret == 0
    assert "unused" not in result.stdout.str()
    _run(pytester, "--snapshot-update", *args).assert_outcomes(passed=1, skipped=skipped)
    assert _snapshot(pytester, "test_framework").is_file()


@pytest.mark.parametrize(
    ("skip", "xdist"),
    [
        pytest.param("importorskip", [], id="importorskip"),
        pytest.param("importorskip", ["-n", "2"], id="importorskip-xdist", marks=pytest.mark.slow),
        pytest.param("module-skip", [], id="module-skip"),
    ],
)
def test_a_module_skipped_at_import_keeps_its_snapshot(
    project: pytest.Pytester, skip: str, xdist: list[str]
) -> None:
    _module(project, "test_framework", preamble=SKIPS[skip])
    _assert_kept(project, *xdist, skipped=1)


def test_an_ignored_module_keeps_its_snapshot(project: pytest.Pytester) -> None:
    _assert_kept(project, "--ignore=test_framework.py", skipped=0)


def test_a_module_that_fails_to_import_keeps_its_snapshot(project: pytest.Pytester) -> None:
    _module(project, "test_framework", preamble="import hookproof_no_such_framework")
    update = ("--snapshot-update", "--continue-on-collection-errors")
    _run(project, *update).assert_outcomes(passed=1, errors=1)
    assert _snapshot(project, "test_framework").is_file()


@pytest.mark.parametrize("xdist", XDIST)
def test_a_removed_assertion_leaves_an_unused_snapshot(
    project: pytest.Pytester, xdist: list[str]
) -> None:
    _module(project, "test_framework", asserts=False)
    result = _run(project, *xdist)
    result.assert_outcomes(passed=2)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*1 snapshot unused*"])
    _run(project, "--snapshot-update", *xdist).assert_outcomes(passed=2)
    assert not _snapshot(project, "test_framework").exists()


def test_a_deleted_module_leaves_unused_snapshots(project: pytest.Pytester) -> None:
    (project.path / "test_framework.py").unlink()
    result = _run(project)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*1 snapshot unused*"])
    _run(project, "--snapshot-update").assert_outcomes(passed=1)
    assert not _snapshot(project, "test_framework").exists()
