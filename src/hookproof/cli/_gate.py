"""``hookproof gate BASELINE CANDIDATE``: classify snapshot changes, fail on the bad ones.

``--format`` offers every format registered with ``hookproof.gate.register_format``: its
choices, its help and the function that renders the report all come from that registry.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from hookproof._support.safe_files import write_text
from hookproof.cli._command import Command
from hookproof.errors import FileAccessError, InvalidInputError
from hookproof.gate.formats import DEFAULT_FORMAT, report_format, report_formats

__all__ = ["COMMAND"]


def _run(args: argparse.Namespace) -> int:
    from hookproof.gate import compare_directories, parse_fail_on  # the gate, when it runs

    report = compare_directories(
        Path(args.baseline),
        Path(args.candidate),
        fail_on=parse_fail_on(args.fail_on),
        allow_empty_baseline=args.allow_empty_baseline,
    )
    _emit(report_format(args.format).render(report), args.output)
    return report.exit_code


def _emit(text: str, output: str | None) -> None:
    if output is None:
        print(text)
        return
    try:
        write_text(Path(output), text + "\n", make_parents=False)
    except FileAccessError as error:
        raise InvalidInputError(
            f"hookproof: cannot write the report to {output!r} ({error.problem}). "
            "Nothing was written; pass -o a path in an existing, writable directory."
        ) from error


def _format_help() -> str:
    return "; ".join(f"{fmt.name}: {fmt.help}" for fmt in report_formats())


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("baseline", metavar="BASELINE_DIR")
    parser.add_argument("candidate", metavar="CANDIDATE_DIR")
    parser.add_argument(
        "--fail-on",
        default="breaking,security",
        help="comma-separated classes that fail the gate: breaking, security, review, "
        "cosmetic, or none (default: breaking,security)",
    )
    parser.add_argument(
        "--format",
        choices=[fmt.name for fmt in report_formats()],
        default=DEFAULT_FORMAT,
        help=_format_help(),
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report here, not stdout")
    parser.add_argument(
        "--allow-empty-baseline",
        action="store_true",
        help="accept a baseline without snapshots (the first run of a new suite); without "
        "it an empty baseline or candidate exits 2",
    )


COMMAND = Command(
    "gate",
    help="compare two snapshot directories and fail on breaking or security changes",
    description="Compare the snapshots of the same suite before (BASELINE) and after "
    "(CANDIDATE) an upgrade. Exit 1 when a change of a failing class is found, 0 "
    "otherwise, 2 on bad input (an unreadable *.txt, a side without snapshots).",
    run=_run,
    arguments=_arguments,
)
