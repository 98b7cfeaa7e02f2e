"""The example database setting is checked once, before any test (issue 28): a directory
outside the rootdir needs the project's opt-in, and a setting hypothesis could not use (a
bad port, a NUL, a path through a file) stops the run with a usage error, never an
INTERNALERROR or a raw error in every @given test."""

from __future__ import annotations

import os

import pytest

PROPERTY = """
from hypothesis import given, strategies as st

@given(st.integers())
def test_property(n):
    assert n == n
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    # The project's own default profile, which writes to the database (under CI hookproof's
    # ci profile only reads it). A setting that works runs in a process of its own: in this
    # one it would leave its database in the profiles hypothesis keeps for this process.
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("HYPOTHESIS_PROFILE", raising=False)
    pytester.makepyfile(test_property=PROPERTY)
    (pytester.path / "a-file.txt").write_text("not a directory")
    return pytester


def _outside(project: pytest.Pytester) -> str:
    return str(project.path.parent / f"{project.path.name}-outside-db")


REFUSED = {
    "a parent directory": (
        lambda project: "../outside_db",
        "hookproof_example_database_outside_rootdir = true",
    ),
    "an absolute path": (_outside, "hookproof_example_database_outside_rootdir = true"),
    "a NUL": (lambda project: "db\x00x", "contains a NUL character"),
    "a port out of range": (
        lambda project: "redis://127.0.0.1:99999/0",
        "has a port that is not a number from 0 to 65535",
    ),
    "a port that is no number": (
        lambda project: "redis://user:hunter2@127.0.0.1:port/0",
        "has a port that is not a number from 0 to 65535",
    ),
    "a path through a file": (
        lambda project: "a-file.txt/db",
        "cannot be written (Not a directory)",
    ),
}


@pytest.mark.parametrize(("value", "says"), REFUSED.values(), ids=REFUSED)
def test_a_setting_that_cannot_work_stops_the_run_before_any_test(
    project: pytest.Pytester, value: object, says: str
) -> None:
    setting = value(project)  # type: ignore[operator]
    result = project.runpytest_inprocess(f"--hookproof-example-database={setting}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = result.stderr.str()
    assert "hookproof: the example database" in errors
    assert says in errors
    assert "INTERNALERROR" not in errors + result.stdout.str()
    assert "hunter2" not in errors
    assert not os.path.exists(_outside(project))
    assert not (project.path.parent / "outside_db").exists()


def test_outside_the_rootdir_is_refused_from_the_ini_too(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nhookproof_example_database = ../outside_db\n")
    result = project.runpytest_inprocess()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "hookproof_example_database_outside_rootdir = true" in result.stderr.str()


def test_the_project_may_opt_in_to_a_directory_outside(project: pytest.Pytester) -> None:
    outside = _outside(project)
    project.makeini(
        "[pytest]\n"
        f"hookproof_example_database = {outside}\n"
        "hookproof_example_database_outside_rootdir = true\n"
    )
    project.runpytest_subprocess().assert_outcomes(passed=1)
    assert os.path.isdir(outside)


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads any directory")
def test_an_unreadable_directory_stops_the_run(project: pytest.Pytester) -> None:
    (project.path / "db").mkdir(mode=0)
    try:
        result = project.runpytest_subprocess(
            "--hookproof-example-database=db", "--hypothesis-profile=ci"
        )
    finally:
        (project.path / "db").chmod(0o700)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "cannot be read (Permission denied)" in result.stderr.str()
