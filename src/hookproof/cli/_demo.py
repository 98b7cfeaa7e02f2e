"""``hookproof demo``: run the example application on scripted models."""

from __future__ import annotations

import argparse

from hookproof.cli._command import Command

__all__ = ["COMMAND"]


def _run(args: argparse.Namespace) -> int:
    from hookproof.examples.demo import run_demo  # the example application, only when run

    print(run_demo(show_trace=args.trace))
    return 0


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--trace", action="store_true", help="also print the guest run's trace")


COMMAND = Command(
    "demo",
    help="run the example application (routing, harness, profiles) on scripted models",
    run=_run,
    arguments=_arguments,
)
