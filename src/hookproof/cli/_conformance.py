"""``hookproof conformance``: which framework semantics hold on each installed target."""

from __future__ import annotations

import argparse

from hookproof import _frameworks
from hookproof.cli._command import Command

__all__ = ["COMMAND"]


def _run(args: argparse.Namespace) -> int:
    from hookproof import conformance  # its probes load every runtime: only when it runs

    if args.target == conformance.EINO_TARGET:
        results = conformance.run_eino_conformance()
    else:
        results = conformance.run_conformance([args.target] if args.target else None)
    formatter = conformance.format_json if args.format == "json" else conformance.format_text
    print(formatter(results))
    return 0


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--target",
        choices=_frameworks.columns(),  # the registry's columns, installed or not
        help="one target (default: every installed one except eino, which needs Go)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")


COMMAND = Command(
    "conformance",
    help="which framework semantics hold on each installed target",
    description="Run small scripted probes on each installed framework and report, per "
    "semantic, whether it behaves as the reference runtime (holds / differs / n/a) and "
    "what was observed. --target eino instead runs a catalogue of Eino scenarios on "
    "hookproof.eino and on real Eino (built with the Go toolchain) and reports, per "
    "semantic, whether both agree. A difference is information; exit status is 0. Exit "
    "2 when the report cannot be made (e.g. --target eino without Go): nothing is "
    "reported as holding that did not run.",
    run=_run,
    arguments=_arguments,
)
