"""``hookproof review [DIR]``: accept, reject or skip the pending snapshots a run left."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hookproof.cli._command import Command

__all__ = ["COMMAND"]


def _run(args: argparse.Namespace) -> int:
    from hookproof.gate.review import review  # the snapshot diff, when it runs

    everything = "accept" if args.accept_all else "reject" if args.reject_all else None
    return review(
        Path(args.directory), everything=everything, read=sys.stdin.readline, out=sys.stdout
    )


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", nargs="?", default="snapshots", metavar="DIR")
    everything = parser.add_mutually_exclusive_group()
    everything.add_argument("--accept-all", action="store_true", help="accept every one")
    everything.add_argument("--reject-all", action="store_true", help="reject every one")


COMMAND = Command(
    "review",
    help="accept, reject or skip the pending snapshots of a --hookproof-pending run",
    description="Walk the pending snapshots (*.txt.pending) under DIR: show each one's "
    "semantic diff with its classes and changed lines, then accept (replace the reviewed "
    "file), reject (delete the pending one) or skip. Exit 0 when none is left pending, 1 "
    "when some are (skipped, quit, unreadable), 2 on bad input.",
    run=_run,
    arguments=_arguments,
)
