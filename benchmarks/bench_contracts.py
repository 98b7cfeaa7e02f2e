"""Hypothesis examples per second for the fail-closed contract on the reference runtime.

The example application's router (plain runtime, two model tiers) checked against hostile
contexts drawn by ``hookproof.contracts.strategies.contexts``; each example builds the agent
twice and runs it twice (the least-privileged baseline and the drawn context). Target: at
least 1,000 examples per second.

    python benchmarks/bench_contracts.py [--examples N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"
if SRC.is_dir() and str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

from hypothesis import HealthCheck, given, settings  # noqa: E402

from hookproof import contracts  # noqa: E402
from hookproof.contracts import strategies  # noqa: E402
from hookproof.examples.dynamic_routing import AgentContext, build_support_agent  # noqa: E402

GUEST = AgentContext("guest", "fast")
DERANDOMIZE = "--random" not in sys.argv


def build(models: Any) -> Any:
    return build_support_agent(models, runtime_tools=False)


def measure(examples: int) -> tuple[int, float]:
    count = 0

    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        derandomize=DERANDOMIZE,
        suppress_health_check=list(HealthCheck),
    )
    @given(context=strategies.contexts(AgentContext, trusted=False))
    def run(context: Any) -> None:
        nonlocal count
        count += 1
        contracts.check_fail_closed(
            build, context, least_privileged_context=GUEST, tiers=("fast", "reasoning")
        )

    started = time.perf_counter()
    run()
    return count, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--random", action="store_true", help="do not derandomize")
    examples = parser.parse_args().examples
    measure(50)
    count, seconds = measure(examples)
    print(f"check_fail_closed over hostile contexts: {count} examples in {seconds:.2f} s")
    print(f"  {count / seconds:,.0f} examples per second (target >= 1,000)")


if __name__ == "__main__":
    main()
