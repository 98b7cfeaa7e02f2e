"""``hookproof check``: run contract suites through pytest and summarise them per file.

pytest's own progress is streamed while the suites run (to stderr); the summary table comes
last (to stdout). Without paths it runs ``./contracts`` when present, else the suite bundled
with hookproof (run from the current directory, writing nothing into the installation).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from hookproof import _exercised
from hookproof.cli._command import Command
from hookproof.errors import InvalidInputError

__all__ = ["CheckResult", "bundled_contracts", "format_summary", "run_check", "suite_environment"]

_OUTCOMES = ("passed", "failed", "error", "skipped")


@dataclass(frozen=True)
class CheckResult:
    """pytest's exit code, passed / failed / error / skipped per file, and what the
    contract checks exercised (None when no check reported anything)."""

    exit_code: int
    rows: tuple[tuple[str, Counter[str]], ...]
    exercised: dict[str, int] | None = None

    def total(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for _, counts in self.rows:
            total.update(counts)
        return total


def bundled_contracts() -> Path:
    from hookproof.examples import contracts

    return Path(contracts.__file__).parent


def default_suite() -> list[str]:
    """``./contracts`` when it exists, else the suite bundled with hookproof."""
    local = Path("contracts")
    return [str(local)] if local.is_dir() else [str(bundled_contracts())]


def missing_paths_error(command: str, missing: list[str]) -> InvalidInputError:
    return InvalidInputError(
        f"hookproof: {command} was given paths that do not exist: {missing}. Pass contract "
        "test files or directories (default: ./contracts)."
    )


def rootdir_option(paths: Sequence[str]) -> list[str]:
    """The bundled suite runs from the current directory, writing nothing into the
    installation: its pytest gets the current directory as rootdir."""
    if any(Path(path).resolve().is_relative_to(bundled_contracts()) for path in paths):
        return ["--rootdir", str(Path.cwd())]
    return []


def _outcome(case: ElementTree.Element) -> str:
    for child in case:
        if child.tag == "failure":
            return "failed"
        if child.tag == "error":
            return "error"
        if child.tag == "skipped":
            return "skipped"
    return "passed"


def _rows(report: Path, rootdir: Path) -> tuple[tuple[str, Counter[str]], ...]:
    if not report.exists():
        return ()
    per_file: dict[str, Counter[str]] = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        name = case.get("file") or case.get("classname") or "?"
        per_file.setdefault(_suite_name(name, rootdir), Counter())[_outcome(case)] += 1
    return tuple(sorted(per_file.items()))


def _suite_name(name: str, rootdir: Path) -> str:
    """A file of the bundled suite by its package path (``hookproof/examples/contracts/...``):
    pytest names it from the rootdir, by an absolute or ``../..`` path into the installation."""
    bundled = bundled_contracts().resolve()
    path = (rootdir / name).resolve()
    if not path.is_relative_to(bundled):
        return name
    return path.relative_to(bundled.parents[2]).as_posix()


def _exercised_totals(report: Path) -> dict[str, int] | None:
    if not report.exists():
        return None
    root = ElementTree.parse(report).getroot()
    groups = [
        [(p.get("name", ""), p.get("value", "")) for p in case.iter("property")]
        for case in root.iter("testcase")
    ]
    return _exercised.from_properties(groups)


def _command(paths: Sequence[str], report: Path, extra: Sequence[str]) -> list[str]:
    command = [sys.executable, "-m", "pytest", *paths, f"--junitxml={report}"]
    command += ["-o", "junit_family=xunit1", "-q", "-p", "no:cacheprovider"]
    return [*command, *rootdir_option(paths), *extra]


def run_check(
    paths: Sequence[str] = (), *, pytest_args: Sequence[str] = (), progress: TextIO | None = None
) -> CheckResult:
    """Run the suites; pytest's output goes to ``progress`` (stderr by default)."""
    if importlib.util.find_spec("pytest") is None:
        raise InvalidInputError(
            "hookproof: check runs contract suites with pytest, which is not installed. "
            "Install it with `pip install 'hookproof[test]'`."
        )
    targets = list(paths) or default_suite()
    missing = [path for path in targets if not Path(path).exists()]
    if missing:
        raise missing_paths_error("check", missing)
    with tempfile.TemporaryDirectory(prefix="hookproof-check-") as scratch:
        report = Path(scratch) / "report.xml"
        code = _stream(_command(targets, report, pytest_args), progress or sys.stderr)
        return CheckResult(code, _rows(report, Path.cwd()), _exercised_totals(report))


def suite_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The suites' environment: hookproof's ``dev`` hypothesis profile (no deadline) unless a
    profile is chosen or CI selects ``ci``, so a slow machine's timing never fails a contract.

    Started from inside a pytest-xdist worker, the suites run as a pytest of their own: the
    worker's variables would make them believe they are a worker too."""
    own = {k: v for k, v in environ.items() if not k.startswith(_XDIST_VARIABLES)}
    chosen = environ.get("HYPOTHESIS_PROFILE") or environ.get("CI")
    return own if chosen else {**own, "HYPOTHESIS_PROFILE": "dev"}


_XDIST_VARIABLES = ("PYTEST_XDIST_", "PYTEST_CURRENT_TEST")


def _stream(command: list[str], progress: TextIO) -> int:
    """Run command, copying its output line by line as it comes (the progress display)."""
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
        env=suite_environment(os.environ),
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            progress.write(line)
            progress.flush()
    return process.returncode


def format_summary(result: CheckResult) -> str:
    width = max([len("suite"), *(len(name) for name, _ in result.rows)])
    header = f"{'suite':<{width}}  " + "  ".join(f"{name:>7}" for name in _OUTCOMES)
    lines = [header, "-" * len(header)]
    for name, counts in [*result.rows, ("total", result.total())]:
        lines.append(f"{name:<{width}}  " + "  ".join(f"{counts[o]:>7}" for o in _OUTCOMES))
    verdict = {
        0: "all contracts hold",
        2: "the run was interrupted (collection error?)",
        4: "pytest rejected its arguments",
        5: "no contract ran (none collected, or every one skipped)",
    }
    if result.exercised is not None:
        lines.append(f"exercised: {_exercised.describe(result.exercised)}")
    lines.append(
        verdict.get(_exit_code(result), f"contracts failed (pytest exit {result.exit_code})")
    )
    return "\n".join(lines)


def _exit_code(result: CheckResult) -> int:
    """pytest's exit code, except that a run where every contract was skipped is "nothing
    ran" (5), not a pass: a suite skipped whole (a missing extra, say) checked nothing."""
    nothing_passed = result.exit_code == 0 and result.total()["passed"] == 0
    return 5 if nothing_passed else result.exit_code


def _run(args: argparse.Namespace) -> int:
    result = run_check(args.paths, pytest_args=args.pytest_args)
    print(format_summary(result))
    # pytest: 1 tests failed; 2 interrupted, 3 internal error, 4 usage error, 5 nothing collected
    return {0: 0, 1: 1}.get(_exit_code(result), 2)


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATHS")
    parser.add_argument(
        "--pytest-args",
        nargs=argparse.REMAINDER,
        default=[],
        help="everything after this is passed to pytest",
    )


COMMAND = Command(
    "check",
    help="run contract suites through pytest and print a summary table",
    description="Run contract suites (default: ./contracts, else the bundled suite) "
    "through pytest. Exit 0 when every contract holds, 1 when one fails, 2 on bad input.",
    run=_run,
    arguments=_arguments,
)
