"""``hookproof fuzz``'s campaign: a time-boxed property campaign over the contract suites.

It is pytest and pytest-xdist doing the work: one pytest with ``-n WORKERS --dist each``, the
``deep`` hypothesis profile and ``-p hookproof.plugin.fuzz`` (which picks the ``@given``
tests and runs each in rounds until its share of the time box is used). The example database
(``--database``, else the project's ``hookproof_example_database``, else hypothesis' own
directory) is where failures go, shrunk, so every later run replays them first.

While it runs, a progress line per check that moved (examples so far, examples per second)
and one per failure; at the end a summary table and, for each failure, what it was and how
to replay it. Exit 0 when nothing failed, 1 when a check failed, 2 on bad input.

``--engine hypofuzz`` hands the same paths and database to HypoFuzz (``hypothesis fuzz``) for
the time box, then replays the database once with pytest to report what it found.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TextIO

import hookproof.plugin.fuzz as fuzz_plugin
from hookproof.cli.check import (
    default_suite,
    missing_paths_error,
    rootdir_option,
    suite_environment,
)
from hookproof.errors import InvalidInputError
from hookproof.redaction import redact_text

__all__ = [
    "Campaign",
    "CheckTotals",
    "Outcome",
    "exit_code",
    "format_summary",
    "hypofuzz_installed",
    "run_campaign",
]


@dataclass(frozen=True)
class Campaign:
    """What to fuzz, for how long, on how many workers, into which database."""

    paths: tuple[str, ...] = ()
    seconds: float = 60.0
    workers: int = 1
    database: str | None = None
    engine: str = "pytest"


@dataclass
class CheckTotals:
    """One check over every worker: examples, worker-seconds spent fuzzing it, the rate
    (the workers' rates added: they run at once) and failures."""

    check: str
    workers: set[str] = field(default_factory=set)
    examples: int = 0
    seconds: float = 0.0
    rate: float = 0.0
    failures: list[tuple[str, list[str]]] = field(default_factory=list)


@dataclass
class Outcome:
    exit_code: int
    checks: list[CheckTotals]
    output: str


def run_campaign(campaign: Campaign, progress: TextIO | None = None) -> Outcome:
    """Run ``campaign``; progress lines go to ``progress`` (stderr by default)."""
    paths = _validated(campaign)
    out = progress or sys.stderr
    if campaign.engine == "hypofuzz":
        return _run_hypofuzz(campaign, paths, out)
    with tempfile.TemporaryDirectory(prefix="hookproof-fuzz-") as scratch:
        log_dir = Path(scratch)
        environment = suite_environment(os.environ)
        environment[fuzz_plugin.DEADLINE_VARIABLE] = repr(time.time() + campaign.seconds)
        environment[fuzz_plugin.LOG_VARIABLE] = str(log_dir)
        command = _pytest_command(paths, campaign, ["-p", fuzz_plugin.__name__])
        command += ["-n", str(campaign.workers), "--dist", "each"]
        with (log_dir / "pytest.out").open("w+", encoding="utf-8") as output:
            code = _watch(command, environment, output, log_dir, out)
            output.seek(0)
            return Outcome(code, _totals(log_dir), output.read())


def _validated(campaign: Campaign) -> list[str]:
    if not math.isfinite(campaign.seconds) or campaign.seconds <= 0 or campaign.workers < 1:
        raise InvalidInputError(
            "hookproof: fuzz needs a positive time box (a finite one) and at least one worker "
            f"(got "
            f"{campaign.seconds / 60:g} minutes, {campaign.workers} workers). Pass e.g. "
            "--minutes 10 --workers 2."
        )
    if importlib.util.find_spec("xdist") is None or importlib.util.find_spec("hypothesis") is None:
        raise InvalidInputError(
            "hookproof: fuzz runs hypothesis in pytest-xdist workers, and one of them is not "
            "installed. Install both with `pip install 'hookproof[test]'`."
        )
    paths = list(campaign.paths) or default_suite()
    missing = [path for path in paths if not Path(path.split("::")[0]).exists()]
    if missing:
        raise missing_paths_error("fuzz", missing)
    return paths


def _pytest_command(paths: Sequence[str], campaign: Campaign, extra: Sequence[str]) -> list[str]:
    command = [sys.executable, "-m", "pytest", *paths, "-p", "no:cacheprovider", "-q"]
    command += ["--hypothesis-profile=deep", *extra]
    if campaign.database:
        command.append(f"--hookproof-example-database={campaign.database}")
    return [*command, *rootdir_option(paths)]


def _watch(
    command: list[str], environment: dict[str, str], output: IO[str], log_dir: Path, out: TextIO
) -> int:
    """Run the campaign's pytest, printing what moved in the worker logs every second."""
    started = time.monotonic()
    shown: dict[tuple[str, str], int] = {}
    with subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, env=environment) as run:
        while run.poll() is None:
            time.sleep(1)
            _print_progress(log_dir, shown, time.monotonic() - started, out)
    _print_progress(log_dir, shown, time.monotonic() - started, out)
    return run.returncode


def _latest(log_dir: Path) -> dict[tuple[str, str], dict[str, object]]:
    """The last line each worker wrote for each check."""
    latest: dict[tuple[str, str], dict[str, object]] = {}
    for log in sorted(log_dir.glob("*.jsonl")):
        for line in log.read_text(encoding="utf-8").splitlines():
            if line.endswith("}"):  # a line still being written is read next time
                entry = json.loads(line)
                latest[(str(entry["worker"]), str(entry["check"]))] = entry
    return latest


def _print_progress(
    log_dir: Path, shown: dict[tuple[str, str], int], elapsed: float, out: TextIO
) -> None:
    latest = _latest(log_dir)
    failed = len({check for (_, check), entry in latest.items() if entry["failure"]})
    for key, entry in sorted(latest.items()):
        rounds = int(str(entry["rounds"]))
        if shown.get(key) == rounds:
            continue
        shown[key] = rounds
        worker, check = key
        examples = int(str(entry["examples"]))
        rate = examples / max(float(str(entry["seconds"])), 1e-9)
        state = "FAILED" if entry["failure"] else "ok"
        out.write(
            f"[{elapsed:6.1f}s] {worker:>4} {check}: {examples} examples, {rate:.0f}/s {state} "
            f"(checks failing so far: {failed})\n"
        )
    out.flush()


def _totals(log_dir: Path) -> list[CheckTotals]:
    per_check: dict[str, CheckTotals] = {}
    for (worker, check), entry in sorted(_latest(log_dir).items()):
        totals = per_check.setdefault(check, CheckTotals(check))
        totals.workers.add(worker)
        examples = int(str(entry["examples"]))
        seconds = float(str(entry["seconds"]))
        totals.examples += examples
        totals.seconds += seconds
        totals.rate += examples / max(seconds, 1e-9)
        failure = entry["failure"]
        if isinstance(failure, list) and failure:
            totals.failures.append((worker, [str(line) for line in failure]))
    return [per_check[name] for name in sorted(per_check)]


def format_summary(outcome: Outcome, campaign: Campaign) -> str:
    """The table, then each failure with its falsifying example and the replay command."""
    checks = outcome.checks
    width = max([len("check"), *(len(totals.check) for totals in checks)])
    header = f"{'check':<{width}}  {'workers':>7}  {'examples':>9}  {'examples/s':>10}  result"
    lines = [header, "-" * len(header)]
    for totals in checks:
        result = "FAILED" if totals.failures else "ok"
        lines.append(
            f"{totals.check:<{width}}  {len(totals.workers):>7}  {totals.examples:>9}  "
            f"{totals.rate:>10.1f}  {result}"
        )
    failed = [totals for totals in checks if totals.failures]
    lines.append(
        f"{len(checks)} checks, {sum(t.examples for t in checks)} examples, {len(failed)} failed"
    )
    for totals in failed:
        lines += _failure_section(totals, campaign)
    if outcome.exit_code not in (0, 1) or (outcome.exit_code == 1 and not failed):
        lines += _unexpected(outcome)
    # Examples, pytest's output and the database URL in the replay command may hold secrets.
    return redact_text("\n".join(lines))


def _failure_section(totals: CheckTotals, campaign: Campaign) -> list[str]:
    worker, failure = min(totals.failures, key=_report_size)
    replay = [sys.executable, "-m", "pytest", totals.check, "--hypothesis-profile=dev"]
    if campaign.database:
        replay.append(f"--hookproof-example-database={campaign.database}")
    found_by = ", ".join(sorted(name for name, _ in totals.failures))
    return [
        "",
        f"FAILED {totals.check} (found by {found_by}; {worker}'s report:)",
        *(f"    {line}" for text in failure for line in text.splitlines()),
        "  replay (the shrunk example is in the database and runs first):",
        f"    {shlex.join(replay)}",
    ]


def _report_size(failure: tuple[str, list[str]]) -> tuple[int, str]:
    """The smallest report is the most shrunk. A worker that replays an example another one
    saved before shrinking it reports it as it was: hypothesis does not shrink an example
    from the database again."""
    worker, lines = failure
    return sum(len(line) for line in lines), worker


def _unexpected(outcome: Outcome) -> list[str]:
    verdict = {
        5: "no @given tests were collected from the paths: there is nothing to fuzz",
    }.get(outcome.exit_code, f"pytest exited {outcome.exit_code}; its output ends:")
    tail = outcome.output.strip().splitlines()[-25:]
    return ["", verdict, *(f"    {line}" for line in tail)]


def exit_code(outcome: Outcome) -> int:
    """0 nothing failed, 1 a check failed, 2 the campaign could not run."""
    if outcome.exit_code == 0:
        return 0
    return 1 if any(totals.failures for totals in outcome.checks) else 2


def hypofuzz_installed() -> bool:
    return importlib.util.find_spec("hypofuzz") is not None


def _run_hypofuzz(campaign: Campaign, paths: list[str], out: TextIO) -> Outcome:
    if not hypofuzz_installed():
        raise InvalidInputError(
            "hookproof: --engine hypofuzz needs HypoFuzz, which is not installed. Install it "
            "with `pip install hypofuzz`, or leave --engine out to fuzz with pytest-xdist."
        )
    pytest_args = _pytest_command(paths, campaign, [])[3:]
    command = [sys.executable, "-c", "from hypothesis.extra.cli import main; main()", "fuzz"]
    command += ["--no-dashboard", "-n", str(campaign.workers), "--", *pytest_args]
    out.write(f"hookproof fuzz: HypoFuzz for {campaign.seconds:g}s: {shlex.join(command)}\n")
    with subprocess.Popen(command, env=suite_environment(os.environ)) as engine:
        try:
            engine.wait(timeout=campaign.seconds)
        except subprocess.TimeoutExpired:
            engine.terminate()
    out.write("hookproof fuzz: replaying the database once to report what was found\n")
    return _replay(campaign, paths)


def _replay(campaign: Campaign, paths: list[str]) -> Outcome:
    replay = Campaign(paths=campaign.paths, seconds=1e-3, workers=1, database=campaign.database)
    with open(os.devnull, "w") as quiet:
        return run_campaign(replay, progress=quiet)
