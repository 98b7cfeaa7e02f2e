"""The oracle's verdict, from two run reports and the reviewed list of differences.

Pure functions over plain data, so hookproof's own suite tests them on small fixed inputs
(tests/oracle/test_comparison.py). A verdict has problems (each fails the run) and numbers.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
DIFFERENCES_FILE = HERE / "langchain_differences.toml"
DIFFERENCES_FORMAT = 1
REPORT_FORMAT = 1
FAILING = frozenset({"failed", "error"})


@dataclass(frozen=True)
class Differences:
    """A reviewed file: test id -> cause, for the reference engine and for LangChain itself.

    ``version`` is the version of the suite's project (LangChain's, or deepagents') the file
    was reviewed for; ``file_name`` names the file in the verdict's messages."""

    version: str
    on_reference: dict[str, str]
    on_langchain: dict[str, str]
    file_name: str = DIFFERENCES_FILE.name


@dataclass
class Verdict:
    problems: list[str] = field(default_factory=list)
    numbers: dict[str, int] = field(default_factory=dict)
    by_cause: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems


def parse_differences(
    text: str, project: str = "langchain", file_name: str = DIFFERENCES_FILE.name
) -> Differences:
    """A differences file's contents; its version is under the key ``project``."""
    data = tomllib.loads(text)
    if data.get("format") != DIFFERENCES_FORMAT:
        raise ValueError(
            f"hookproof: {file_name} has format {data.get('format')!r}; this runner "
            f"reads {DIFFERENCES_FORMAT}. Rewrite it in the documented layout."
        )
    if not isinstance(data.get(project), str):
        raise ValueError(
            f"hookproof: {file_name} does not say which {project} version it was reviewed "
            f'for. Add {project} = "<version>" at its top.'
        )
    return Differences(
        data[project],
        _by_test(data.get("difference", []), "difference"),
        _by_test(data.get("langchain_failure", []), "langchain_failure"),
        file_name,
    )


def read_differences(path: Path = DIFFERENCES_FILE, project: str = "langchain") -> Differences:
    return parse_differences(path.read_text(encoding="utf-8"), project, path.name)


def _by_test(groups: list[dict[str, Any]], table: str) -> dict[str, str]:
    listed: dict[str, str] = {}
    for group in groups:
        cause = str(group.get("cause", "")).strip()
        if not cause:
            raise ValueError(f"hookproof: a [[{table}]] group has no cause. Give its reason.")
        for test in group["tests"]:
            if test in listed:
                raise ValueError(f"hookproof: {test} is listed twice in [[{table}]]. Keep one.")
            listed[test] = cause
    return listed


def compare(baseline: dict[str, Any], reference: dict[str, Any], listed: Differences) -> Verdict:
    verdict = Verdict()
    _check_ran(baseline, "on LangChain's create_agent", verdict)
    _check_ran(reference, "on the reference engine", verdict)
    if verdict.problems:
        return verdict
    base, ref = baseline["tests"], reference["tests"]
    if base.keys() != ref.keys():
        only = sorted(base.keys() ^ ref.keys())
        verdict.problems.append(
            f"hookproof: the two runs ran different tests ({len(only)} in one only, first "
            f"{only[:5]}). The swap must not change collection. Look at the swap plugin."
        )
        return verdict
    named = listed.file_name
    differing = _differing(base, ref)
    _check(differing, listed.on_reference, ref, "on the reference engine", verdict, named)
    fails = {t for t, e in base.items() if e["outcome"] in FAILING}
    _check(fails, listed.on_langchain, base, "on LangChain itself", verdict, named)
    _count(base, ref, listed, verdict)
    return verdict


def _check_ran(report: dict[str, Any], where: str, verdict: Verdict) -> None:
    if report.get("format") != REPORT_FORMAT:
        verdict.problems.append(
            f"hookproof: the run {where} wrote no readable report. See its log."
        )
        return
    if report["exitstatus"] not in (0, 1) or report["collection_errors"] or not report["tests"]:
        verdict.problems.append(
            f"hookproof: the tests did not run {where} (pytest exit "
            f"{report['exitstatus']}, {len(report['tests'])} tests, collection errors "
            f"{report['collection_errors'][:5]}). An oracle that did not run proves nothing. "
            "Read the run's log for the cause (a missing test dependency: install hookproof's "
            "oracle extra)."
        )


def _differing(base: dict[str, Any], ref: dict[str, Any]) -> set[str]:
    """Tests that pass on LangChain and do not pass on the reference engine."""
    return {
        t for t, e in base.items() if e["outcome"] == "passed" and ref[t]["outcome"] != "passed"
    }


def _check(
    found: set[str],
    listed: dict[str, str],
    run: dict[str, Any],
    where: str,
    verdict: Verdict,
    file_name: str,
) -> None:
    unlisted = sorted(found - listed.keys())
    if unlisted:
        lines = "".join(
            f"\n  {t}\n    {run[t].get('message', run[t]['outcome'])}" for t in unlisted
        )
        verdict.problems.append(
            f"hookproof: {len(unlisted)} test(s) fail {where} and are not in "
            f"{file_name}:{lines}\nFix the difference, or list each test with its "
            "reason."
        )
    stale = sorted(listed.keys() - found)
    if stale:
        lines = "".join(f"\n  {t}: {run[t]['outcome'] if t in run else 'not run'}" for t in stale)
        verdict.problems.append(
            f"hookproof: {len(stale)} test(s) listed in {file_name} as failing "
            f"{where} no longer do:{lines}\nRemove them from the list (the list only shrinks)."
        )


def _count(
    base: dict[str, Any], ref: dict[str, Any], listed: Differences, verdict: Verdict
) -> None:
    building = {t for t, e in ref.items() if e.get("built_agent")}
    verdict.numbers = {
        "tests": len(base),
        "passed_on_langchain": sum(e["outcome"] == "passed" for e in base.values()),
        "failed_on_langchain": sum(e["outcome"] in FAILING for e in base.values()),
        "passed_on_reference": sum(e["outcome"] == "passed" for e in ref.values()),
        "agent_building_passed_on_langchain": sum(base[t]["outcome"] == "passed" for t in building),
        "agent_building_passed_on_both": sum(
            base[t]["outcome"] == ref[t]["outcome"] == "passed" for t in building
        ),
        "listed": len(listed.on_reference),
    }
    for cause in listed.on_reference.values():
        verdict.by_cause[cause] = verdict.by_cause.get(cause, 0) + 1


def readme_list(listed: Differences) -> list[str]:
    """The documentation's list of differences, one line per cause, most tests first."""
    counts: dict[str, int] = {}
    for cause in listed.on_reference.values():
        counts[cause] = counts.get(cause, 0) + 1
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [f"- {count} test{'s' * (count > 1)}: {cause}" for cause, count in ordered]
