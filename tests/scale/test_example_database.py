"""The shared example database: a failure one process finds replays first, shrunk, in the
next, through a real Redis or a directory; pull-request (``ci``) runs only read it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scale.conftest import need_redis_client

pytestmark = pytest.mark.slow

PROPERTY = """
import os

from hypothesis import given, strategies as st


@given(st.integers(min_value=0, max_value=100_000))
def test_stays_below_the_limit(n):
    with open(os.environ["HOOKPROOF_TRIED"], "a") as log:
        log.write(f"{n}\\n")
    assert n < 777
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(test_property=PROPERTY)
    monkeypatch.setenv("HOOKPROOF_TRIED", str(pytester.path / "tried.txt"))
    return pytester


def _run(project: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, list[int]]:
    """One pytest process; the examples it tried, in order."""
    log = project.path / "tried.txt"
    log.unlink(missing_ok=True)
    result = project.runpytest_subprocess(*args)
    tried = [int(line) for line in log.read_text().split()] if log.exists() else []
    return result, tried


def _shared(
    project: pytest.Pytester, profile: str, database: str, *more: str
) -> tuple[pytest.RunResult, list[int]]:
    """``_run`` under ``profile``, sharing examples through ``database``."""
    return _run(
        project,
        f"--hypothesis-profile={profile}",
        f"--hookproof-example-database={database}",
        *more,
    )


def _keys(url: str) -> int:
    import redis

    count: int = redis.Redis.from_url(url).dbsize()
    return count


def test_a_failure_found_in_one_process_replays_first_and_shrunk_in_another(
    project: pytest.Pytester, redis_url: str
) -> None:
    found, _ = _shared(project, "dev", redis_url)
    found.assert_outcomes(failed=1)
    assert "n=777" in found.stdout.str()
    assert _keys(redis_url) > 0
    assert not (project.path / ".hypothesis" / "examples").exists()  # only Redis holds it

    replayed, tried = _shared(project, "ci", redis_url)
    replayed.assert_outcomes(failed=1)
    assert tried[0] == 777
    assert f"example database {redis_url}" in replayed.stdout.str()


def test_without_the_shared_database_the_ci_run_starts_elsewhere(
    project: pytest.Pytester, redis_url: str
) -> None:
    _shared(project, "dev", redis_url)
    other = redis_url.removesuffix("/0") + "/1"  # the same server, an empty database
    _, tried = _shared(project, "ci", other)
    assert tried[0] != 777


def test_the_ci_profile_only_reads_unless_told_to_write(
    project: pytest.Pytester, redis_url: str
) -> None:
    read_only, _ = _shared(project, "ci", redis_url)
    read_only.assert_outcomes(failed=1)
    assert _keys(redis_url) == 0

    _shared(project, "ci", redis_url, "--hookproof-example-database-write")
    assert _keys(redis_url) > 0


def test_a_directory_from_the_ini_is_shared_relative_to_the_rootdir(
    project: pytest.Pytester,
) -> None:
    project.makeini("[pytest]\nhookproof_example_database = shared-examples\n")
    found, _ = _run(project, "--hypothesis-profile=deep")
    found.assert_outcomes(failed=1)
    assert any((project.path / "shared-examples").iterdir())

    _, tried = _run(project, "--hypothesis-profile=ci")
    assert tried[0] == 777


def test_without_a_hookproof_profile_the_database_still_applies(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("HYPOTHESIS_PROFILE", raising=False)
    found, _ = _run(project, "--hookproof-example-database=shared-examples")
    found.assert_outcomes(failed=1)
    _, tried = _run(project, "--hookproof-example-database=shared-examples")
    assert tried[0] == 777


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("a-file.txt", "is a file, not a directory"),
        ("http://127.0.0.1:9/0", "only redis://, rediss:// and unix:// are understood"),
        ("redis://user:hunter2@127.0.0.1:1/0", "cannot reach the example database"),
        ("  ", "is empty"),
    ],
)
def test_a_bad_database_stops_the_run_saying_why(
    project: pytest.Pytester, value: str, says: str
) -> None:
    if value.startswith("redis://"):
        need_redis_client()
    (project.path / "a-file.txt").write_text("not a directory")
    result = project.runpytest_subprocess(f"--hookproof-example-database={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert says in result.stderr.str()
    assert "hunter2" not in result.stderr.str()


def test_writing_without_a_database_is_a_usage_error(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("--hookproof-example-database-write")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "without an example database" in result.stderr.str()


def test_the_plugin_imports_neither_hypothesis_nor_redis_without_the_option(
    tmp_path: Path,
) -> None:
    import subprocess
    import sys

    code = "import hookproof.plugin, sys; print(sorted(sys.modules))"
    loaded = subprocess.check_output([sys.executable, "-c", code], text=True, cwd=tmp_path)
    assert "'redis'" not in loaded
    assert "'hypothesis'" not in loaded


@pytest.mark.parametrize(
    ("spec", "shown"),
    [
        ("redis://user:hunter2@db.internal:6380/2", "redis://db.internal:6380/2"),
        ("redis://127.0.0.1/0", "redis://127.0.0.1/0"),
        ("shared/examples", "shared/examples"),
    ],
)
def test_a_database_is_shown_without_its_credentials(spec: str, shown: str) -> None:
    from hookproof.plugin._example_db import describe

    assert describe(spec) == shown
