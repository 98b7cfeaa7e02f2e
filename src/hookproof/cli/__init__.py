"""The ``hookproof`` command: one module per subcommand, each defining its ``COMMAND``.

- ``hookproof check [PATHS]``: run contract suites through pytest, print a summary table
  (``hookproof.cli.check``);
- ``hookproof gate BASELINE CANDIDATE``: classify snapshot changes, fail on the bad ones, in
  any format of ``hookproof.gate``'s registry;
- ``hookproof review [DIR]``: accept, reject or skip the pending snapshots a run left;
- ``hookproof conformance``: which framework semantics hold on each installed target;
- ``hookproof fuzz [PATHS]``: a time-boxed hypothesis campaign in pytest-xdist workers;
- ``hookproof demo``: run the example application on scripted models (``--trace`` for a trace).

Each subcommand imports what it runs only when it runs, so ``hookproof --help`` stays quick.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from hookproof import __version__
from hookproof.cli import _conformance, _demo, _fuzz, _gate, _review, check
from hookproof.errors import HookproofError

__all__ = ["main"]

COMMANDS = (
    _demo.COMMAND,
    check.COMMAND,
    _gate.COMMAND,
    _review.COMMAND,
    _conformance.COMMAND,
    _fuzz.COMMAND,
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hookproof",
        description="Deterministic contract testing for LLM agent middleware.",
    )
    parser.add_argument("--version", action="version", version=f"hookproof {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.add_to(commands)
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
