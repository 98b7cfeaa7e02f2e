"""Hypothesis examples per second for the fail-closed contract, the check body's share, and
what drawing the contexts costs hypothesis.

The example application's router (two model tiers) checked against hostile contexts drawn
by ``hookproof.contracts.strategies.contexts``, as a property test under the pytest plugin
runs it (one test's baseline and engine choice reused across its examples). Three ways to run
the check:

- native: hookproof middleware on the reference engine;
- bridged: the same application's LangChain middleware and tools, unchanged, on the
  reference engine (through the LangChain bridge; issue #31: within 1.3x of native);
- langchain: that LangChain middleware on LangChain's own create_agent.

And two empty-bodied property tests, to price the drawing alone: ``contexts()`` against
hypothesis' ``integers()`` (issue #31: within 1.5x).

Every figure is process CPU time per example (the test bodies hypothesis ran), so load from
elsewhere on the machine weighs less; rounds alternate between the measures in one process,
and each figure is the median of the rounds with their range. ``check body`` is the time
inside ``check_fail_closed`` (issue #31: at most 300 µs on the native router).

    python benchmarks/bench_contracts.py [--examples N] [--rounds R] [--only NAME ...] [--calls]

``--calls`` first counts each measure's Python calls per example (cProfile: the whole
property test, and inside ``check_fail_closed``), a figure that load does not move.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"
if SRC.is_dir() and str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

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


CHECKS = {"native": build, "bridged": build_bridged, "langchain": build_langchain}
DRAWS: dict[str, Callable[[], Any]] = {
    "contexts": lambda: strategies.contexts(AgentContext, trusted=False),
    "integers": st.integers,
}
LABELS = {
    "native": "check_fail_closed, hookproof middleware, reference engine",
    "bridged": "check_fail_closed, LangChain middleware, reference engine",
    "langchain": "check_fail_closed, LangChain middleware, LangChain create_agent",
    "contexts": "empty body, contexts(AgentContext, trusted=False)",
    "integers": "empty body, integers()",
}


@dataclass(frozen=True)
class Sample:
    """One property test: how many examples ran, and CPU µs per example in all and inside
    the check."""

    examples: int
    per_example: float
    body: float


def _property_test(strategy: Any, examples: int, body: Callable[[Any], None]) -> Any:
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        derandomize=DERANDOMIZE,
        suppress_health_check=list(HealthCheck),
    )
    @given(value=strategy)
    def run(value: Any) -> None:
        body(value)

    return run


def measure(name: str, examples: int, profile: cProfile.Profile | None = None) -> Sample:
    """One property test of ``examples`` examples for the measure ``name`` (with
    ``profile``: its check bodies under that profiler)."""
    count, inside = 0, 0
    factory = CHECKS.get(name)

    def body(context: Any) -> None:
        nonlocal count, inside
        count += 1
        if factory is None:
            return
        started = time.process_time_ns()
        if profile is not None:
            profile.enable()
        try:
            contracts.check_fail_closed(
                factory, context, least_privileged_context=GUEST, tiers=("fast", "reasoning")
            )
        finally:
            if profile is not None:
                profile.disable()
        inside += time.process_time_ns() - started

    strategy = DRAWS[name]() if name in DRAWS else DRAWS["contexts"]()
    run = _property_test(strategy, examples, body)
    started = time.process_time_ns()
    # As under the pytest plugin, which scopes check_fail_closed's baseline to one test.
    with _exercised.collecting():
        run()
    spent = time.process_time_ns() - started
    return Sample(count, spent / count / 1000, inside / count / 1000)


def _calls(profile: cProfile.Profile) -> int:
    return sum(entry[1] for entry in pstats.Stats(profile).stats.values())  # type: ignore[attr-defined]


def calls_per_example(name: str, examples: int) -> tuple[float, float]:
    """Python function calls (cProfile, which load does not move) per example: of the whole
    property test, and inside ``check_fail_closed`` (0 for the empty bodies)."""
    whole, inside = cProfile.Profile(), cProfile.Profile()
    whole.enable()
    count = measure(name, examples).examples
    whole.disable()
    measure(name, examples, inside)
    return _calls(whole) / count, (_calls(inside) / count if name in CHECKS else 0.0)


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):,.0f} µs [{min(values):,.0f}–{max(values):,.0f}]"


def _ratio(top: list[float], bottom: list[float]) -> str:
    rounds = [a / b for a, b in zip(top, bottom, strict=True)]
    median = statistics.median(top) / statistics.median(bottom)
    return f"{median:.2f}x [{min(rounds):.2f}–{max(rounds):.2f}]"


def _print_calls(names: list[str], examples: int) -> None:
    for name in names:
        share = examples // 5 if name == "langchain" else examples
        whole, inside = calls_per_example(name, share)
        body = f", {inside:,.0f} inside check_fail_closed" if name in CHECKS else ""
        print(f"{LABELS[name]}: {whole:,.0f} Python calls per example{body}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=500, help="examples per round")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds")
    parser.add_argument("--random", action="store_true", help="do not derandomize")
    parser.add_argument("--only", choices=[*CHECKS, *DRAWS], action="append")
    parser.add_argument(
        "--calls", action="store_true", help="also count Python calls per example (cProfile)"
    )
    arguments = parser.parse_args()
    names = arguments.only or [*CHECKS, *DRAWS]
    for name in names:
        measure(name, 30)  # imports and first builds outside the rounds
    if arguments.calls:
        _print_calls(names, arguments.examples)
    samples: dict[str, list[Sample]] = {name: [] for name in names}
    for _ in range(arguments.rounds):
        for name in names:  # alternating: load from elsewhere falls on all measures alike
            share = arguments.examples // 5 if name == "langchain" else arguments.examples
            samples[name].append(measure(name, share))
    per = {name: [s.per_example for s in found] for name, found in samples.items()}
    for name in names:
        rate = 1e6 / statistics.median(per[name])
        print(f"{LABELS[name]}: {_spread(per[name])} per example, {rate:,.0f} examples/s")
        if name in CHECKS:
            print(f"  check body: {_spread([s.body for s in samples[name]])} per example")
    if "native" in per and "bridged" in per:
        print(f"bridged / native, per example: {_ratio(per['bridged'], per['native'])}")
    if "bridged" in per and "langchain" in per:
        print(f"langchain / bridged, per example: {_ratio(per['langchain'], per['bridged'])}")
    if "contexts" in per and "integers" in per:
        print(f"contexts() / integers(), drawing: {_ratio(per['contexts'], per['integers'])}")


if __name__ == "__main__":
    main()
