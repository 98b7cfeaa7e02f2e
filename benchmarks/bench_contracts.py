"""Hypothesis examples per second for the fail-closed contract.

The example application's router (two model tiers) checked against hostile contexts drawn
by ``hookproof.contracts.strategies.contexts``; each example builds the agent twice and runs
it twice (the least-privileged baseline and the drawn context). Three ways to run it:

- native: hookproof middleware on the reference engine (target: at least 1,000 examples/s);
- langchain-on-reference: the same application's LangChain middleware and tools, unchanged,
  on the reference engine (target: within 1.5x of native);
- langchain: that LangChain middleware on LangChain's own create_agent.

    python benchmarks/bench_contracts.py [--examples N] [--only native|bridged|langchain]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"
if SRC.is_dir() and str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

from hypothesis import HealthCheck, given, settings  # noqa: E402

from hookproof import _exercised, contracts  # noqa: E402
from hookproof.contracts import strategies  # noqa: E402
from hookproof.examples.dynamic_routing import AgentContext, build_support_agent  # noqa: E402

GUEST = AgentContext("guest", "fast")
DERANDOMIZE = "--random" not in sys.argv


def build(models: Any) -> Any:
    return build_support_agent(models, runtime_tools=False)


def build_bridged(models: Any) -> Any:
    from hookproof.examples.dynamic_routing import SYSTEM_PROMPT
    from hookproof.examples.langchain_routing import LANGCHAIN_BUSINESS_TOOLS, LangChainRouter
    from hookproof.runtime import create_agent

    return create_agent(
        models["fast"],
        list(LANGCHAIN_BUSINESS_TOOLS),
        system_prompt=SYSTEM_PROMPT,
        middleware=[LangChainRouter(models)],
    )


def build_langchain(models: Any) -> Any:
    from langchain.agents import create_agent

    from hookproof.examples.dynamic_routing import SYSTEM_PROMPT
    from hookproof.examples.langchain_routing import LANGCHAIN_BUSINESS_TOOLS, LangChainRouter

    return create_agent(
        models["fast"],
        list(LANGCHAIN_BUSINESS_TOOLS),
        system_prompt=SYSTEM_PROMPT,
        middleware=[LangChainRouter(models)],
    )


BUILDS = {"native": build, "bridged": build_bridged, "langchain": build_langchain}
LABELS = {
    "native": "hookproof middleware, reference engine",
    "bridged": "LangChain middleware, reference engine",
    "langchain": "LangChain middleware, LangChain create_agent",
}


def measure(examples: int, factory: Any = build) -> tuple[int, float]:
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
            factory, context, least_privileged_context=GUEST, tiers=("fast", "reasoning")
        )

    started = time.perf_counter()
    # As under the pytest plugin, which scopes check_fail_closed's baseline to one test.
    with _exercised.collecting():
        run()
    return count, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds per build")
    parser.add_argument("--random", action="store_true", help="do not derandomize")
    parser.add_argument("--only", choices=sorted(BUILDS), action="append")
    arguments = parser.parse_args()
    names = arguments.only or list(BUILDS)
    for name in names:
        measure(50, BUILDS[name])
    # Rounds alternate between the builds, so load from elsewhere falls on all of them alike.
    rates: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(arguments.rounds):
        for name in names:
            share = arguments.examples // arguments.rounds
            count, seconds = measure(share // 4 if name == "langchain" else share, BUILDS[name])
            rates[name].append(count / seconds)
    median = {name: statistics.median(values) for name, values in rates.items()}
    for name in names:
        spread = ", ".join(f"{rate:,.0f}" for rate in rates[name])
        print(f"check_fail_closed, {LABELS[name]}: median {median[name]:,.0f} examples/s")
        print(f"  rounds: {spread}")
    if "native" in median and "bridged" in median:
        ratio = median["native"] / median["bridged"]
        print(f"native / LangChain middleware on reference: {ratio:.2f}x (target <= 1.5x)")
    if "bridged" in median and "langchain" in median:
        ratio = median["bridged"] / median["langchain"]
        print(f"reference / create_agent for LangChain middleware: {ratio:.1f}x")


if __name__ == "__main__":
    main()
