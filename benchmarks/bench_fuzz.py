"""Examples per second of ``hookproof fuzz`` with 1 and with 2 pytest-xdist workers.

Each configuration is one real campaign (``hookproof.cli._campaign.run_campaign``: pytest, xdist
``--dist each``, the ``deep`` profile) over the same contract suites (default ``./contracts``
when run from the repository root, else the bundled suite) for the same time box, into a
fresh directory example database. Reported per configuration:

- ``examples``: test cases the checks ran (hypothesis' calls of the test body, shrinking and
  database replays included), over every worker and check;
- ``per worker-s``: examples per second of fuzzing time on one worker (start-up excluded):
  the figure a machine with more cores multiplies, as long as each worker has a core;
- ``per s``: examples per second of the whole time box (start-up included), all workers.

Per check, each configuration's rate is printed too. Usage::

    python benchmarks/bench_fuzz.py [--seconds 60] [--workers 1,2] [--json] [PATHS]
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
if SRC.is_dir() and str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))  # benchmark the working tree even when not pip-installed

from hookproof.cli._campaign import Campaign, run_campaign  # noqa: E402


@dataclass(frozen=True)
class Result:
    workers: int
    seconds: float
    wall_seconds: float
    examples: int
    per_worker_second: float
    per_second: float
    per_check: dict[str, float]
    exit_code: int


def measure(paths: tuple[str, ...], workers: int, seconds: float) -> Result:
    with tempfile.TemporaryDirectory(prefix="bench-fuzz-db-") as database:
        campaign = Campaign(paths, seconds, workers, database)
        started = time.monotonic()
        outcome = run_campaign(campaign, progress=io.StringIO())
        wall = time.monotonic() - started
    examples = sum(check.examples for check in outcome.checks)
    worker_seconds = sum(check.seconds for check in outcome.checks)
    return Result(
        workers=workers,
        seconds=seconds,
        wall_seconds=round(wall, 1),
        examples=examples,
        per_worker_second=round(examples / max(worker_seconds, 1e-9), 1),
        per_second=round(examples / wall, 1),
        per_check={check.check: round(check.rate, 1) for check in outcome.checks},
        exit_code=outcome.exit_code,
    )


def _print(results: list[Result]) -> None:
    print(f"{'workers':>7}  {'box s':>6}  {'wall s':>6}  {'examples':>9}  "
          f"{'per worker-s':>12}  {'per s':>8}")  # fmt: skip
    for result in results:
        print(
            f"{result.workers:>7}  {result.seconds:>6.0f}  {result.wall_seconds:>6.1f}  "
            f"{result.examples:>9}  {result.per_worker_second:>12.1f}  {result.per_second:>8.1f}"
        )
    print("\nexamples/s per check (all workers):")
    for check in sorted(results[0].per_check):
        rates = "  ".join(f"{r.workers}w {r.per_check.get(check, 0):>8.1f}" for r in results)
        print(f"  {rates}  {check}")
    if any(result.exit_code for result in results):
        print("\nnote: a campaign did not end with exit 0; its figures include a failure")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    counts = [int(count) for count in args.workers.split(",")]
    results = [measure(tuple(args.paths), count, args.seconds) for count in counts]
    if args.json:
        print(json.dumps([asdict(result) for result in results], indent=2))
    else:
        _print(results)


if __name__ == "__main__":
    main()
