"""``hookproof fuzz [PATHS]``: a time-boxed hypothesis campaign in pytest-xdist workers."""

from __future__ import annotations

import argparse

from hookproof.cli._command import Command

__all__ = ["COMMAND"]


def _run(args: argparse.Namespace) -> int:
    # The campaign loads pytest and its plugin: only when it runs, not for every command.
    from hookproof.cli._campaign import Campaign, exit_code, format_summary, run_campaign

    seconds = args.seconds if args.seconds is not None else args.minutes * 60
    campaign = Campaign(tuple(args.paths), seconds, args.workers, args.database, args.engine)
    outcome = run_campaign(campaign)
    print(format_summary(outcome, campaign))
    return exit_code(outcome)


def _arguments(parser: argparse.ArgumentParser) -> None:
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


COMMAND = Command(
    "fuzz",
    help="a time-boxed property campaign over the contract suites (deep profile, xdist)",
    description="Run the @given tests of the contract suites (default: ./contracts, else "
    "the bundled suite) under the deep hypothesis profile in WORKERS pytest-xdist "
    "workers, each with its own random seeds, until the time box ends; failures go to "
    "the example database, shrunk. Exit 0 when none failed, 1 when one did, 2 on bad "
    "input.",
    run=_run,
    arguments=_arguments,
)
