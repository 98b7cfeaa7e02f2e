"""Seconds for check_fail_closed on a deepagents app, on the real graph and on the fast path.

The example application's LangChain router and tools on deepagents' ``create_deep_agent``
(two model tiers, a declared subagent), checked against 20 hostile contexts drawn by
``hookproof.contracts.strategies.contexts``, as a property test under the pytest plugin runs
it (one test's baseline and engine choice reused across its examples). Three ways:

- graph: ``engine="graph"``, every example on deepagents' LangGraph graph;
- rebuilt: ``engine="auto"`` as before builds were reused: the first example on the graph,
  the others on the reference engine through the LangChain bridge, the app built anew for
  every run there, the 1st, 4th and 16th confirmed on the real graph (in the time);
- fast: ``engine="auto"`` as it runs now: the same, one build reused for every run on the
  reference engine while each run leaves it as built.

Rounds alternate between the two in one process, so load from elsewhere falls on both alike.

    python benchmarks/bench_deepagents_contracts.py [--examples 20] [--rounds 3]
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
from hookproof.adapters.langchain import _reuse  # noqa: E402
from hookproof.contracts import strategies  # noqa: E402
from hookproof.examples.dynamic_routing import AgentContext  # noqa: E402
from hookproof.examples.langchain_routing import build_langchain_deep_agent  # noqa: E402

GUEST = AgentContext("guest", "fast")
RESEARCHER = {"name": "researcher", "description": "Researches a question.", "system_prompt": "."}
ENGINES = {"graph": "graph", "rebuilt": "auto", "fast": "auto"}


def build(models: Any) -> Any:
    return build_langchain_deep_agent(models, subagents=[RESEARCHER])


def measure(examples: int, engine: str, *, reuse: bool = True) -> tuple[float, Any]:
    """Seconds for one property test of ``examples`` examples, and its last report; with
    ``reuse=False`` every run on the reference engine builds the app anew."""
    reports: list[Any] = []
    keep = _reuse.ReusedBuild.returned
    if not reuse:
        _reuse.ReusedBuild.returned = lambda self: None  # type: ignore[method-assign]

    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(context=strategies.contexts(AgentContext, trusted=False))
    def run(context: Any) -> None:
        report = contracts.check_fail_closed(
            build,
            context,
            least_privileged_context=GUEST,
            tiers=("fast", "reasoning"),
            engine=engine,  # type: ignore[arg-type]
        )
        reports.append(report)

    started = time.perf_counter()
    try:
        with _exercised.collecting():  # as under the pytest plugin: one test's memo
            run()
    finally:
        _reuse.ReusedBuild.returned = keep  # type: ignore[method-assign]
    return time.perf_counter() - started, reports[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per engine")
    arguments = parser.parse_args()
    measure(2, "graph")  # imports and first builds outside the timed rounds
    measure(2, "auto")
    seconds: dict[str, list[float]] = {name: [] for name in ENGINES}
    last: dict[str, Any] = {}
    for _ in range(arguments.rounds):
        for name, engine in ENGINES.items():
            taken, last[name] = measure(arguments.examples, engine, reuse=name != "rebuilt")
            seconds[name].append(taken)
    median = {name: statistics.median(values) for name, values in seconds.items()}
    for name in ENGINES:
        rounds = ", ".join(f"{value:.1f}" for value in seconds[name])
        report = last[name]
        where = (
            f"{report.examples_on_reference} on the reference engine, "
            f"{report.confirmed_on_graph} confirmed on the graph"
            if name != "graph"
            else "all on the graph"
        )
        print(
            f"check_fail_closed x{arguments.examples} on deepagents, {name}: "
            f"median {median[name]:.1f} s ({where})"
        )
        print(f"  rounds: {rounds}")
    print(f"graph / fast: {median['graph'] / median['fast']:.1f}x")
    print(f"rebuilt / fast: {median['rebuilt'] / median['fast']:.1f}x")


if __name__ == "__main__":
    main()
