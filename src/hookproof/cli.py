"""The ``hookproof`` command.

- ``hookproof check [PATHS]``: run contract suites through pytest, print a summary table;
- ``hookproof gate BASELINE CANDIDATE``: classify snapshot changes, fail on the bad ones;
- ``hookproof review [DIR]``: accept, reject or skip the pending snapshots a run left;
- ``hookproof fuzz [PATHS]``: a time-boxed hypothesis campaign in pytest-xdist workers;
- ``hookproof demo``: run the example application on scripted models (``--trace`` for a trace).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hookproof._safe_files import write_text
from hookproof.errors import FileAccessError, HookproofError, InvalidInputError

__all__ = ["main"]


def _demo(args: argparse.Namespace) -> int:
    from hookproof.examples.demo import run_demo

    print(run_demo(show_trace=args.trace))
    return 0


def _gate(args: argparse.Namespace) -> int:
    from hookproof import gate

    formatters = {
        "text": gate.format_text,
        "markdown": gate.format_markdown,
        "json": gate.format_json,
        "html": gate.format_html,
    }
    report = gate.compare_directories(
        Path(args.baseline),
        Path(args.candidate),
        fail_on=gate.parse_fail_on(args.fail_on),
        allow_empty_baseline=args.allow_empty_baseline,
    )
    _emit(formatters[args.format](report), args.output)
    return report.exit_code


def _emit(text: str, output: str | None) -> None:
    if output is None:
        print(text)
    else:
        try:
            write_text(Path(output), text + "\n", make_parents=False)
        except FileAccessError as error:
            raise InvalidInputError(
                f"hookproof: cannot write the report to {output!r} ({error.problem}). "
                "Nothing was written; pass -o a path in an existing, writable directory."
            ) from error


def _review(args: argparse.Namespace) -> int:
    from hookproof._review import review

    everything = "accept" if args.accept_all else "reject" if args.reject_all else None
    return review(
        Path(args.directory), everything=everything, read=sys.stdin.readline, out=sys.stdout
    )


def _add_review(commands: Any) -> None:
    parser = commands.add_parser(
        "review",
        help="accept, reject or skip the pending snapshots of a --hookproof-pending run",
        description="Walk the pending snapshots (*.txt.pending) under DIR: show each one's "
        "semantic diff with its classes and changed lines, then accept (replace the reviewed "
        "file), reject (delete the pending one) or skip. Exit 0 when none is left pending, 1 "
        "when some are (skipped, quit, unreadable), 2 on bad input.",
    )
    parser.add_argument("directory", nargs="?", default="snapshots", metavar="DIR")
    everything = parser.add_mutually_exclusive_group()
    everything.add_argument("--accept-all", action="store_true", help="accept every one")
    everything.add_argument("--reject-all", action="store_true", help="reject every one")
    parser.set_defaults(handler=_review)


def _fuzz(args: argparse.Namespace) -> int:
    from hookproof._fuzz import Campaign, exit_code, format_summary, run_campaign

    seconds = args.seconds if args.seconds is not None else args.minutes * 60
    campaign = Campaign(tuple(args.paths), seconds, args.workers, args.database, args.engine)
    outcome = run_campaign(campaign)
    print(format_summary(outcome, campaign))
    return exit_code(outcome)


def _add_fuzz(commands: Any) -> None:
    parser = commands.add_parser(
        "fuzz",
        help="a time-boxed property campaign over the contract suites (deep profile, xdist)",
        description="Run the @given tests of the contract suites (default: ./contracts, else "
        "the bundled suite) under the deep hypothesis profile in WORKERS pytest-xdist "
        "workers, each with its own random seeds, until the time box ends; failures go to "
        "the example database, shrunk. Exit 0 when none failed, 1 when one did, 2 on bad "
        "input.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATHS")
    parser.add_argument("--minutes", type=float, default=1.0, help="the time box (default 1)")
    parser.add_argument("--seconds", type=float, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--workers", type=int, default=1, help="xdist workers (default 1)")
    parser.add_argument(
        "--database",
        metavar="DIR_OR_URL",
        help="example database: a directory or redis:// URL (default: the ini's "
        "hookproof_example_database, else hypothesis' .hypothesis directory)",
    )
    parser.add_argument(
        "--engine",
        choices=("pytest", "hypofuzz"),
        default="pytest",
        help="pytest-xdist (default) or HypoFuzz, where it is installed",
    )
    parser.set_defaults(handler=_fuzz)


def _check(args: argparse.Namespace) -> int:
    from hookproof.check import format_summary, run_check

    result = run_check(args.paths, pytest_args=args.pytest_args)
    print(format_summary(result))
    # pytest: 1 tests failed; 2 interrupted, 3 internal error, 4 usage error, 5 nothing collected
    return {0: 0, 1: 1}.get(result.exit_code, 2)


def _conformance(args: argparse.Namespace) -> int:
    from hookproof import conformance

    if args.target == conformance.EINO_TARGET:
        results = conformance.run_eino_conformance()
    else:
        results = conformance.run_conformance([args.target] if args.target else None)
    formatter = conformance.format_json if args.format == "json" else conformance.format_text
    print(formatter(results))
    return 0


def _add_conformance(commands: Any) -> None:
    parser = commands.add_parser(
        "conformance",
        help="which framework semantics hold on each installed target",
        description="Run small scripted probes on each installed framework and report, per "
        "semantic, whether it behaves as the reference runtime (holds / differs / n/a) and "
        "what was observed. --target eino instead runs a catalogue of Eino scenarios on "
        "hookproof.eino and on real Eino (built with the Go toolchain) and reports, per "
        "semantic, whether both agree. A difference is information; exit status is 0. Exit "
        "2 when the report cannot be made (e.g. --target eino without Go): nothing is "
        "reported as holding that did not run.",
    )
    parser.add_argument(
        "--target",
        choices=("reference", "langchain", "deepagents", "eino"),
        help="one target (default: every installed one except eino, which needs Go)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(handler=_conformance)


def _add_gate(commands: Any) -> None:
    gate = commands.add_parser(
        "gate",
        help="compare two snapshot directories and fail on breaking or security changes",
        description="Compare the snapshots of the same suite before (BASELINE) and after "
        "(CANDIDATE) an upgrade. Exit 1 when a change of a failing class is found, 0 "
        "otherwise, 2 on bad input (an unreadable *.txt, a side without snapshots).",
    )
    gate.add_argument("baseline", metavar="BASELINE_DIR")
    gate.add_argument("candidate", metavar="CANDIDATE_DIR")
    gate.add_argument(
        "--fail-on",
        default="breaking,security",
        help="comma-separated classes that fail the gate: breaking, security, review, "
        "cosmetic, or none (default: breaking,security)",
    )
    gate.add_argument(
        "--format",
        choices=("text", "markdown", "json", "html"),
        default="text",
        help="text (default); markdown for a pull-request comment (cut at 65,536 characters); "
        "json; html: one self-contained page with side-by-side diffs (use with -o)",
    )
    gate.add_argument("-o", "--output", metavar="FILE", help="write the report here, not stdout")
    gate.add_argument(
        "--allow-empty-baseline",
        action="store_true",
        help="accept a baseline without snapshots (the first run of a new suite); without "
        "it an empty baseline or candidate exits 2",
    )
    gate.set_defaults(handler=_gate)


def _add_check(commands: Any) -> None:
    check = commands.add_parser(
        "check",
        help="run contract suites through pytest and print a summary table",
        description="Run contract suites (default: ./contracts, else the bundled suite) "
        "through pytest. Exit 0 when every contract holds, 1 when one fails, 2 on bad input.",
    )
    check.add_argument("paths", nargs="*", metavar="PATHS")
    check.add_argument(
        "--pytest-args",
        nargs=argparse.REMAINDER,
        default=[],
        help="everything after this is passed to pytest",
    )
    check.set_defaults(handler=_check)


def _parser() -> argparse.ArgumentParser:
    from hookproof import __version__

    parser = argparse.ArgumentParser(
        prog="hookproof",
        description="Deterministic contract testing for LLM agent middleware.",
    )
    parser.add_argument("--version", action="version", version=f"hookproof {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = commands.add_parser(
        "demo",
        help="run the example application (routing, harness, profiles) on scripted models",
    )
    demo.add_argument("--trace", action="store_true", help="also print the guest run's trace")
    demo.set_defaults(handler=_demo)
    _add_check(commands)
    _add_gate(commands)
    _add_review(commands)
    _add_conformance(commands)
    _add_fuzz(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        result: int = args.handler(args)
    except HookproofError as error:
        print(error, file=sys.stderr)
        return 2
    return result


if __name__ == "__main__":
    sys.exit(main())
