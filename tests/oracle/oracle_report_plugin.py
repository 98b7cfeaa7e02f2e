"""A pytest plugin the oracle loads (``-p``) into both runs of LangChain's tests: it writes
one JSON report per run, the outcome of every test id, whether the test built an agent on the
reference engine, and the first line of each failure.

It is copied next to the swap plugin into a directory of its own for the run: hookproof's
``tests`` package must not shadow the ``tests`` package of LangChain's sources.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

REPORT_FORMAT = 1
BUILT_AGENT = "hookproof_oracle_built_agent"
_RANK = {"passed": 0, "skipped": 1, "xfailed": 1, "failed": 2, "error": 3}


class _Report:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.tests: dict[str, dict[str, Any]] = {}
        self.collection_errors: list[str] = []

    def record(self, report: pytest.TestReport) -> None:
        entry = self.tests.setdefault(report.nodeid, {"outcome": "passed", "built_agent": False})
        outcome = _outcome(report)
        if outcome is not None and _RANK[outcome] >= _RANK[entry["outcome"]]:
            if outcome != entry["outcome"] and outcome in {"failed", "error"}:
                entry["message"] = _first_line(report)
            entry["outcome"] = outcome
        if any(name == BUILT_AGENT for name, _ in report.user_properties):
            entry["built_agent"] = True

    def write(self, exitstatus: int, collected: int) -> None:
        data = {
            "format": REPORT_FORMAT,
            "exitstatus": int(exitstatus),
            "collected": collected,
            "collection_errors": self.collection_errors,
            "tests": dict(sorted(self.tests.items())),
        }
        self.path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def _outcome(report: pytest.TestReport) -> str | None:
    if report.failed:
        return "failed" if report.when == "call" else "error"
    if report.skipped:
        return "xfailed" if hasattr(report, "wasxfail") else "skipped"
    return "passed" if report.when == "call" else None


def _first_line(report: pytest.TestReport) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    text = getattr(crash, "message", None) or str(report.longrepr)
    return text.strip().splitlines()[0][:300] if text.strip() else ""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--hookproof-oracle-report", required=True)


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # xdist's controller, or a run without xdist
        path = Path(config.getoption("--hookproof-oracle-report"))
        config.pluginmanager.register(_Recorder(_Report(path)), "hookproof_oracle_recorder")


class _Recorder:
    def __init__(self, report: _Report) -> None:
        self.report = report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.report.record(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.report.collection_errors.append(report.nodeid)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.report.write(exitstatus, session.testscollected)
