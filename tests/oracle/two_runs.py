"""What every oracle suite does: run a project's own tests unmodified twice and report.

A ``Suite`` says which tests (paths under the suite's root) and which packages bind
LangChain's ``create_agent`` at import (the swap plugin sweeps them too). ``run_both`` runs the
suite on LangChain, then with ``create_agent`` swapped for ``on_reference_engine``, each in a
pytest process of its own writing a JSON report (``oracle_report_plugin.py``); the runners
(``run_langchain``, ``run_deepagents``) compare the two with their reviewed list of
differences (``comparison.py``) and ``print_verdict`` says the outcome.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.oracle import comparison
from tests.oracle.sources import OracleError

HERE = Path(__file__).parent
PLUGINS = ("oracle_report_plugin.py", "oracle_swap_plugin.py")
ENGINES = ("langchain", "reference")
# A run takes minutes; only a hung test comes near this (a generous bound, so a busy machine
# never stops a run that would have finished).
RUN_LIMIT_SECONDS = 40 * 60
# A test whose run grows without bound gets a MemoryError and fails, listed or not, instead of
# the whole machine running out of memory and the kernel killing the run.
RUN_MEMORY_BYTES = 8 * 1024**3


def _bounded_memory() -> None:
    import resource

    # Never above a limit the caller already set (raising it is refused, and the run would
    # die in the child before pytest starts).
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = RUN_MEMORY_BYTES if hard == resource.RLIM_INFINITY else min(hard, RUN_MEMORY_BYTES)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


@dataclass(frozen=True)
class Suite:
    """One project's tests as the oracle runs them."""

    title: str  # "LangChain's agent tests", in what the runner prints
    paths: tuple[str, ...]  # what pytest runs, relative to the suite's root
    swap_in: tuple[str, ...] = ()  # packages binding create_agent at import (deepagents)


def run_both(suite: Suite, root: Path, logs: Path, workers: int) -> dict[str, Any]:
    """The report of each engine's run of the suite extracted at ``root`` ({} for a run that
    wrote none). The plugins are copied into a directory of their own beside ``root``: the
    oracle's ``tests`` package must not shadow the suite's."""
    plugins = root.parent / "plugins"
    plugins.mkdir(exist_ok=True)
    for plugin in PLUGINS:
        shutil.copyfile(HERE / plugin, plugins / plugin)
    logs.mkdir(parents=True, exist_ok=True)
    return {
        engine: run_tests(suite, root, plugins, engine, logs / f"{engine}.log", workers)
        for engine in ENGINES
    }


def pytest_command(suite: Suite, engine: str, report: Path, workers: int) -> list[str]:
    command = [sys.executable, "-m", "pytest", *suite.paths]
    for plugin in ("no:cacheprovider", "no:hookproof", "no:langsmith_plugin"):
        command += ["-p", plugin]
    command += ["-p", "oracle_report_plugin", f"--hookproof-oracle-report={report}"]
    if engine == "reference":
        command += ["-p", "oracle_swap_plugin"]
        command += [f"--hookproof-oracle-swap-in={package}" for package in suite.swap_in]
    if workers:
        command += ["-n", str(workers)]
    return command


def run_tests(suite: Suite, root: Path, plugins: Path, engine: str, log: Path, workers: int) -> Any:
    report = root.parent / f"{engine}.json"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS", "PYTHONPATH"))
    }
    env["PYTHONPATH"] = str(plugins)
    started = time.monotonic()
    with log.open("w", encoding="utf-8") as out:
        try:
            subprocess.run(
                pytest_command(suite, engine, report, workers),
                cwd=root,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                check=False,
                timeout=RUN_LIMIT_SECONDS,
                preexec_fn=_bounded_memory,
            )
        except subprocess.TimeoutExpired:  # a hung test: the run did not finish, so no report
            print(f"hookproof oracle: the {engine} run passed {RUN_LIMIT_SECONDS}s; stopped")
            return {}
    print(
        f"hookproof oracle: {suite.title} on {engine}: "
        f"{time.monotonic() - started:.0f}s (log: {log})",
        flush=True,
    )
    if not report.is_file():
        return {}
    return json.loads(report.read_text(encoding="utf-8"))


def keep_reports(reports: dict[str, Any], directory: Path) -> None:
    """Each engine's report as ``<engine>.json`` in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    for engine, report in reports.items():
        (directory / f"{engine}.json").write_text(json.dumps(report, indent=1), encoding="utf-8")


def print_verdict(verdict: comparison.Verdict) -> None:
    for problem in verdict.problems:
        print(problem, file=sys.stderr)
    if verdict.numbers:
        print("hookproof oracle: " + json.dumps(verdict.numbers, indent=1))
        for cause, count in sorted(verdict.by_cause.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {count:4} {cause}")
    print("hookproof oracle: " + ("OK" if verdict.ok else "FAILED"))


def main(parser: Any, run: Any, argv: list[str] | None) -> int:
    """A runner's command line: ``run(options)``'s exit code, or 2 with the message when
    it could not get as far as comparing (an OracleError)."""
    options = parser.parse_args(argv)
    try:
        return int(run(options))
    except OracleError as error:
        print(error, file=sys.stderr)
        return 2
