"""The ``hookproof`` command. ``hookproof demo`` runs a real scripted agent and prints its trace."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

__all__ = ["main"]


def _demo(args: argparse.Namespace) -> int:
    from hookproof.examples.demo import run_demo

    print(run_demo(show_trace=not args.no_trace))
    return 0


def _parser() -> argparse.ArgumentParser:
    from hookproof import __version__

    parser = argparse.ArgumentParser(
        prog="hookproof",
        description="Deterministic contract testing for LLM agent middleware.",
    )
    parser.add_argument("--version", action="version", version=f"hookproof {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = commands.add_parser(
        "demo", help="run the role-routed example agent on scripted models and print its trace"
    )
    demo.add_argument("--no-trace", action="store_true", help="print only the summary lines")
    demo.set_defaults(handler=_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    result: int = args.handler(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
