"""The pytester projects of this suite run as projects of their own, in process or not."""

from __future__ import annotations

import pytest

CHILD_TEST = """
import os

def test_environment():
    assert [name for name in os.environ if name.startswith("PYTEST_XDIST_")] == []
    assert os.environ["PYTEST_ADDOPTS"] == "-p no:cacheprovider -p no:langsmith_plugin"
"""


@pytest.mark.parametrize("runner", ["runpytest_inprocess", "runpytest_subprocess"])
def test_child_runs_do_not_inherit_the_xdist_worker_variables(
    runner: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    # As an xdist worker sets them, before the fixture that must take them out again.
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    monkeypatch.setenv("PYTEST_XDIST_TESTRUNUID", "0123456789abcdef")
    pytester: pytest.Pytester = request.getfixturevalue("pytester")
    pytester.makepyfile(test_child=CHILD_TEST)
    getattr(pytester, runner)().assert_outcomes(passed=1)
    assert not (pytester.path / ".pytest_cache").exists()
