"""What contract checks exercised reaches the test report, the terminal and
``hookproof check``'s summary, added up across tests (and across xdist workers)."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ElementTree

import pytest

from hookproof import _exercised
from hookproof.cli.check import CheckResult, format_summary, run_check

pytest_plugins = ["pytester"]

SUITE = '''
from hookproof import contracts
from hookproof.messages import ToolMessage
from hookproof.runtime import AgentMiddleware, create_agent, tool


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return query


class Refuse(AgentMiddleware):
    def wrap_model_call(self, request, handler):
        return handler(request.override(tools=[]))

    def wrap_tool_call(self, request, handler):
        return ToolMessage("refused", tool_call_id=request.tool_call.id, status="error")


def build(model):
    return create_agent(model, [lookup], middleware=[Refuse()])


def test_exclusion():
    contracts.check_exclusion_holds(build, ["lookup"])


def test_untested_allowed():
    contracts.check_tool_closure(build, allow_untested=True)


def test_no_check():
    assert True
'''


def _property(report: str) -> list[str]:
    root = ElementTree.parse(report).getroot()
    return [
        prop.get("value", "")
        for prop in root.iter("property")
        if prop.get("name") == _exercised.PROPERTY
    ]


@pytest.mark.slow
@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_totals_reach_junit_and_the_terminal(pytester: pytest.Pytester, workers: list[str]) -> None:
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest_subprocess("--junitxml=report.xml", *workers)
    result.assert_outcomes(passed=3)
    values = sorted(_property(str(pytester.path / "report.xml")))
    assert values == [
        "checks=1 runs=1 contexts=1 tool_calls_attempted=0 tool_calls_executed=0 "
        "hooks_observed=1 interrupts_resumed=0 untested=1",
        "checks=1 runs=1 contexts=1 tool_calls_attempted=1 tool_calls_executed=0 "
        "hooks_observed=2 interrupts_resumed=0 untested=0",
    ]
    result.stdout.fnmatch_lines(
        [
            "hookproof contracts: 2 check calls exercised 2 runs, 2 contexts, 1 tool calls "
            "attempted, 0 tool calls executed, 3 hooks observed, 0 interrupts resumed, "
            "1 untested"
        ]
    )


def test_a_session_without_checks_prints_no_totals(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_ok():\n    assert True\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "hookproof contracts:" not in result.stdout.str()


@pytest.mark.slow
def test_hookproof_check_prints_the_totals(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=SUITE)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(pytester.path)
        result = run_check(["test_suite.py"], progress=io.StringIO())
    assert result.exit_code == 0
    assert result.exercised == {
        "checks": 2,
        "runs": 2,
        "contexts": 2,
        "tool_calls_attempted": 1,
        "tool_calls_executed": 0,
        "hooks_observed": 3,
        "interrupts_resumed": 0,
        "untested": 1,
    }
    assert "exercised: 2 check calls exercised 2 runs" in format_summary(result)


def test_a_summary_without_checks_says_nothing_about_them() -> None:
    assert "exercised" not in format_summary(CheckResult(0, ()))


def test_encoded_counts_read_back_and_ignore_noise() -> None:
    counts = dict.fromkeys(_exercised.COUNTS, 2)
    assert _exercised.decode(_exercised.encode(counts)) == counts
    assert _exercised.decode("runs=3 bogus=1 checks=x untested") == {"runs": 3}


def test_hookproof_check_runs_the_suites_without_hypothesis_deadlines() -> None:
    from hookproof.cli.check import suite_environment

    assert suite_environment({"PATH": "/bin"}) == {"PATH": "/bin", "HYPOTHESIS_PROFILE": "dev"}
    assert suite_environment({"CI": "true"}) == {"CI": "true"}  # CI selects the ci profile
    assert suite_environment({"HYPOTHESIS_PROFILE": "deep"}) == {"HYPOTHESIS_PROFILE": "deep"}
    worker = {"CI": "1", "PYTEST_XDIST_WORKER": "gw0", "PYTEST_XDIST_WORKER_COUNT": "2"}
    assert suite_environment(worker) == {"CI": "1"}  # the suites are no xdist worker


class _Report:
    def __init__(self, number: int) -> None:
        self.number = number

    def counts(self) -> dict[str, int]:
        return {"checks": 1, "runs": self.number, "untested": self.number % 2}


def test_a_long_property_test_keeps_a_bounded_number_of_reports_and_their_exact_totals() -> None:
    # One report per example: a fuzz campaign's hundred thousand examples must not keep
    # them all (memory, and every full garbage collection walks them), nor lose a count.
    examples = 5 * _exercised.FOLD_AT + 7
    with _exercised.collecting() as reports:
        for number in range(examples):
            _exercised.record(_Report(number))
            assert len(reports) < _exercised.FOLD_AT
        summed = _exercised.totals(report.counts() for report in reports)
    assert summed["checks"] == examples
    assert summed["runs"] == examples * (examples - 1) // 2
    assert summed["untested"] == examples // 2
    assert summed["contexts"] == 0


def test_a_short_test_keeps_its_reports_as_they_were_recorded() -> None:
    kept = [_Report(number) for number in range(3)]
    with _exercised.collecting() as reports:
        for report in kept:
            _exercised.record(report)
        assert reports == kept
