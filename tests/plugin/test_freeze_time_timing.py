"""freeze_time freezes the clock the code under test reads, not the one pytest and its plugins
time tests with: ``--durations``, junit times, the session time and pytest-split's stored
durations stay real while the test body and its fixtures see the frozen moment."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime

import pytest

FROZEN_PROJECT = """
import time
from datetime import datetime, timezone

import pytest

MOMENT = datetime(2026, 1, 1, 9, 0, tzinfo=timezone.utc)

pytestmark = pytest.mark.hookproof(freeze_time="2026-01-01T09:00:00Z")


@pytest.fixture
def seen_in_fixture():
    seen = datetime.now(timezone.utc)
    yield seen
    assert time.time() == MOMENT.timestamp()


def test_frozen(seen_in_fixture):
    assert seen_in_fixture == MOMENT
    assert datetime.now(timezone.utc) == MOMENT
    assert time.time() == MOMENT.timestamp()
    time.sleep(0.05)
    assert time.perf_counter() == time.perf_counter()


def test_also_frozen():
    assert datetime.now(timezone.utc) == MOMENT
"""

# Each ``--durations`` line: "0.05s call     test_project.py::test_frozen".
DURATION_LINE = re.compile(r"^(-?[\d.]+)s (setup|call|teardown) +test_project\.py::")
# A real run of this project takes well under a minute; the frozen clock is ~56 years away.
SANE_SECONDS = 60.0


def _durations(lines: list[str]) -> list[float]:
    return [float(match[1]) for line in lines if (match := DURATION_LINE.match(line))]


@pytest.mark.parametrize(
    "workers", [pytest.param([], id="one-process"), pytest.param(["-n", "1"], id="xdist")]
)
def test_durations_and_session_time_stay_real(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    pytester.makepyfile(test_project=FROZEN_PROJECT)
    result = pytester.runpytest_subprocess("--durations=0", "--durations-min=0", "-vv", *workers)
    result.assert_outcomes(passed=2)
    durations = _durations(result.outlines)
    assert len(durations) == 6, result.outlines
    assert all(0 <= seconds < SANE_SECONDS for seconds in durations), durations
    assert max(durations) >= 0.05  # the call that slept is timed by the real clock
    session = re.search(r"passed in (-?[\d.]+)s", result.outlines[-1])
    assert session is not None
    assert 0 < float(session[1]) < SANE_SECONDS


def test_junit_times_stay_real(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_project=FROZEN_PROJECT)
    pytester.runpytest_subprocess("--junitxml=report.xml").assert_outcomes(passed=2)
    suite = ET.parse(pytester.path / "report.xml").getroot().find("testsuite")
    assert suite is not None
    times = {case.attrib["name"]: float(case.attrib["time"]) for case in suite.iter("testcase")}
    everything = [*times.values(), float(suite.attrib["time"])]
    assert all(0 <= seconds < SANE_SECONDS for seconds in everything), everything
    assert times["test_frozen"] >= 0.05
    # Written with the real date: after the frozen moment, and no later than now.
    written = datetime.fromisoformat(suite.attrib["timestamp"])
    written = written if written.tzinfo else written.astimezone()
    assert datetime(2026, 1, 2, tzinfo=UTC) < written <= datetime.now(UTC)


def test_pytest_split_stores_real_durations(pytester: pytest.Pytester) -> None:
    if importlib.util.find_spec("pytest_split") is None:
        reason = "pytest-split is not installed (pip install 'hookproof[split]')"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; CI must run the shard recipe")
        pytest.skip(reason)
    pytester.makepyfile(test_project=FROZEN_PROJECT)
    stored = pytester.path / "durations.json"
    result = pytester.runpytest_subprocess("--store-durations", f"--durations-path={stored}")
    result.assert_outcomes(passed=2)
    durations = json.loads(stored.read_text(encoding="utf-8"))
    assert sorted(durations) == [
        "test_project.py::test_also_frozen",
        "test_project.py::test_frozen",
    ]
    assert all(0 <= seconds < SANE_SECONDS for seconds in durations.values()), durations
    assert durations["test_project.py::test_frozen"] >= 0.05
