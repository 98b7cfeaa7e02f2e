"""``hookproof fuzz``: a time-boxed campaign over a small project's ``@given`` tests in two
pytest-xdist workers, one property of which is false (so plainly that a first round of 10
examples finds it, even when a loaded machine leaves no more time)."""

from __future__ import annotations

import importlib.util
import re
import sys

import pytest

pytestmark = pytest.mark.slow

HOLDS = """
import os

from hypothesis import given, strategies as st


@given(st.integers())
def test_addition_of_zero_holds(n):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(f"drawn-{worker}.txt", "a") as log:
        log.write(f"{n}\\n")
    assert n + 0 == n


def test_plain_tests_are_not_targets():
    raise AssertionError("a campaign runs only @given tests")
"""

BREAKS = """
from hypothesis import given, strategies as st


@given(st.lists(st.integers(min_value=0, max_value=10**6), min_size=1))
def test_no_number_reaches_a_thousand(numbers):
    assert max(numbers) < 1000
"""


def _counterexample(text: str) -> int:
    """The largest number of the reported ``numbers=[...]`` (the example falsifies the
    property when it is 1000 or more; shrinking gets it to [1000] when time allows)."""
    shown = re.search(r"numbers=\[([\d, ]+)\]", text)
    assert shown is not None, text
    return max(map(int, shown.group(1).split(",")))


def _fuzz(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    return project.run(sys.executable, "-m", "hookproof", "fuzz", *args)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """The suites in ./contracts, where fuzz looks without paths."""
    (pytester.path / "contracts").mkdir()
    (pytester.path / "contracts" / "test_holds.py").write_text(HOLDS)
    (pytester.path / "contracts" / "test_breaks.py").write_text(BREAKS)
    return pytester


def test_a_campaign_reports_each_check_and_fails_on_the_false_property(
    project: pytest.Pytester,
) -> None:
    result = _fuzz(project, "--seconds", "4", "--workers", "2", "--database", "db")
    assert result.ret == 1
    summary = result.stdout.str()
    holds = next(line for line in result.stdout.lines if "test_addition" in line)
    assert holds.split()[1:2] == ["2"]  # both workers ran it
    assert int(holds.split()[2]) >= 20  # a first round (10 examples) on each worker at least
    assert holds.endswith("ok")
    assert "test_plain_tests_are_not_targets" not in summary
    assert "FAILED contracts/test_breaks.py::test_no_number_reaches_a_thousand" in summary
    # the counterexample (shrunk to [1000] when the time box lets hypothesis finish shrinking;
    # on a loaded machine a short box may end first)
    assert _counterexample(summary) >= 1000
    assert "@reproduce_failure(" in summary
    assert "--hookproof-example-database=db" in summary
    assert "2 checks" in summary and "1 failed" in summary
    assert "examples" in result.stderr.str() and "/s" in result.stderr.str()
    assert "(checks failing so far: 1)" in result.stderr.str()


@pytest.mark.parametrize("kind", ["directory", "redis"])
def test_what_a_campaign_found_replays_first_from_its_database(
    project: pytest.Pytester, request: pytest.FixtureRequest, kind: str
) -> None:
    database = request.getfixturevalue("redis_url") if kind == "redis" else "db"
    _fuzz(project, "--seconds", "2", "--database", database, "contracts/test_breaks.py")
    replay = project.runpytest_subprocess(
        "contracts/test_breaks.py",
        "--hypothesis-profile=ci",
        f"--hookproof-example-database={database}",
    )
    replay.assert_outcomes(failed=1)
    assert _counterexample(replay.stdout.str()) >= 1000


def test_each_worker_draws_its_own_examples(project: pytest.Pytester) -> None:
    result = _fuzz(project, "--seconds", "3", "--workers", "2", "contracts/test_holds.py")
    assert result.ret == 0, result.stdout.str()
    drawn = [(project.path / f"drawn-gw{n}.txt").read_text().split() for n in (0, 1)]
    assert len(drawn[0]) >= 10 and len(drawn[1]) >= 10
    assert drawn[0] != drawn[1]  # one seed for both would draw the same sequence


def test_a_project_without_properties_has_nothing_to_fuzz(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_one():\n    pass\n")
    result = _fuzz(pytester, "--seconds", "1", "test_plain.py")
    assert result.ret == 2
    assert "no @given tests were collected" in result.stdout.str()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--minutes", "0"], "needs a positive time box"),
        (["--minutes", "nan"], "needs a positive time box (a finite one)"),
        (["--minutes", "inf"], "needs a positive time box (a finite one)"),
        (["--workers", "0"], "at least one worker"),
        (["missing.py"], "paths that do not exist"),
    ],
)
def test_bad_input_exits_2_saying_why(project: pytest.Pytester, args: list[str], says: str) -> None:
    result = _fuzz(project, *args)
    assert result.ret == 2
    assert says in result.stderr.str()


@pytest.mark.skipif(importlib.util.find_spec("hypofuzz") is not None, reason="HypoFuzz installed")
def test_the_hypofuzz_engine_without_hypofuzz_is_a_clear_error(project: pytest.Pytester) -> None:
    result = _fuzz(project, "--seconds", "1", "--engine", "hypofuzz")
    assert result.ret == 2
    assert "pip install hypofuzz" in result.stderr.str()


def test_the_hypofuzz_engine_gets_the_targets_and_the_database_then_a_replay_reports(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """HypoFuzz itself is not installed here: ``hypothesis fuzz`` is started all the same
    (and ends at once); what it was handed and the replay of the database are checked."""
    from hookproof.cli import _campaign as _fuzz

    monkeypatch.setattr(_fuzz, "hypofuzz_installed", lambda: True)
    monkeypatch.chdir(project.path)
    _fuzz.run_campaign(_fuzz.Campaign(("contracts/test_breaks.py",), 2, 1, "db"))
    campaign = _fuzz.Campaign(("contracts",), 1, 2, "db", engine="hypofuzz")
    outcome = _fuzz.run_campaign(campaign)
    started = capfd.readouterr().err
    assert "fuzz --no-dashboard -n 2 -- contracts" in started
    assert "--hookproof-example-database=db" in started
    assert _fuzz.exit_code(outcome) == 1
    assert "numbers=[1000]" in _fuzz.format_summary(outcome, campaign)


def test_a_database_that_cannot_work_stops_the_campaign_saying_why(
    project: pytest.Pytester,
) -> None:
    result = _fuzz(project, "--seconds", "1", "--database", "http://127.0.0.1:9/0")
    assert result.ret == 2
    assert "pytest exited 4" in result.stdout.str()
    assert "only redis://, rediss:// and unix:// are understood" in result.stdout.str()


def test_the_summary_shows_the_most_shrunk_of_the_workers_reports() -> None:
    """A worker that replays what another saved before shrinking reports it unshrunk."""
    from hookproof.cli._campaign import Campaign, CheckTotals, Outcome, format_summary

    check = CheckTotals("contracts/test_breaks.py::test_no_number_reaches_a_thousand")
    check.failures = [
        ("gw0", ["AssertionError", "Failing test case: test(numbers=[21173])"]),
        ("gw1", ["AssertionError", "Failing test case: test(numbers=[1000])"]),
    ]
    summary = format_summary(Outcome(1, [check], ""), Campaign(database="db"))
    assert "numbers=[1000]" in summary
    assert "numbers=[21173]" not in summary
    assert "(found by gw0, gw1; gw1's report:)" in summary


def test_campaign_profiles_stay_random_where_ci_is_set() -> None:
    """Hypothesis derandomizes its defaults when CI is set; dev and deep must not follow."""
    import os
    import subprocess
    import sys

    code = (
        "from hypothesis import settings\n"
        "from hookproof.contracts.profiles import register_profiles\n"
        "register_profiles()\n"
        "print([settings.get_profile(n).derandomize for n in ('ci', 'dev', 'deep')])\n"
    )
    env = {**os.environ, "CI": "true"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "[True, False, False]", out.stderr
