"""Seconds for check_fail_closed on a deepagents app, on the real graph and on the fast path.

The example application's LangChain router and tools on deepagents' ``create_deep_agent``
(two model tiers, a declared subagent), checked against 20 hostile contexts drawn by
``hookproof.contracts.strategies.contexts``, as a property test under the pytest plugin runs
it (one test's baseline and engine choice reused across its examples). Four ways:

- graph-rebuilt: ``engine="graph"``, every example on deepagents' LangGraph graph, the graph
  built anew for every run (as before graph builds were reused);
- graph: the same, one graph build per test reused while each run leaves it as built;
- fast-rebuilt: ``engine="auto"`` with graph builds per run (as before): the first example
  on the graph, the others on the reference engine through the LangChain bridge (one build
  reused there), the 1st, 4th and 16th confirmed on the real graph (in the time);
- fast: ``engine="auto"`` as it runs now, builds reused on both engines.

Rounds alternate between the ways in one process, so load from elsewhere falls on all alike.
Each way's process CPU time is shown too (less moved by load than wall time); ``--calls``
also counts the Python function calls of one run of each way (cProfile), a measure the
machine's load does not move.

    python benchmarks/bench_deepagents_contracts.py [--examples 20] [--rounds 3] [--calls]
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
from hookproof.adapters.langchain.target import LangChainTarget  # noqa: E402
from hookproof.contracts import strategies  # noqa: E402
from hookproof.examples.dynamic_routing import AgentContext  # noqa: E402
from hookproof.examples.langchain_routing import build_langchain_deep_agent  # noqa: E402
from hookproof.targets import RunWithTarget  # noqa: E402

GUEST = AgentContext("guest", "fast")
RESEARCHER = {"name": "researcher", "description": "Researches a question.", "system_prompt": "."}
WAYS = {"graph-rebuilt": "graph", "graph": "graph", "fast-rebuilt": "auto", "fast": "auto"}


KEPT_RUN, KEPT_KEEP = LangChainTarget.run, LangChainTarget._keep_built
CPU_SECONDS: list[float] = []  # each measure's process CPU time (all its threads)


def build(models: Any) -> Any:
    return build_langchain_deep_agent(models, subagents=[RESEARCHER])


def measure(examples: int, engine: str, *, graph_reuse: bool = True) -> tuple[float, Any]:
    """Seconds for one property test of ``examples`` examples, and its last report; with
    ``graph_reuse=False`` every run on the real graph builds the app anew, as before."""
    reports: list[Any] = []
    if not graph_reuse:
        LangChainTarget.run = RunWithTarget.run  # type: ignore[method-assign]
        LangChainTarget._keep_built = lambda self, models, agent: None  # type: ignore[method-assign]

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

    started, cpu = time.perf_counter(), time.process_time()
    try:
        with _exercised.collecting():  # as under the pytest plugin: one test's memo
            run()
    finally:
        LangChainTarget.run = KEPT_RUN  # type: ignore[method-assign]
        LangChainTarget._keep_built = KEPT_KEEP  # type: ignore[method-assign]
    CPU_SECONDS.append(time.process_time() - cpu)
    return time.perf_counter() - started, reports[-1]


def calls(examples: int, engine: str, *, graph_reuse: bool) -> int:
    """Python function calls of one property test (cProfile's count, load-independent)."""
    import cProfile
    import pstats

    profile = cProfile.Profile()
    profile.enable()
    measure(examples, engine, graph_reuse=graph_reuse)
    profile.disable()
    return int(pstats.Stats(profile).total_calls)  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per way")
    parser.add_argument("--calls", action="store_true", help="count Python calls per way too")
    arguments = parser.parse_args()
    measure(2, "graph")  # imports and first builds outside the timed rounds
    measure(2, "auto")
    seconds: dict[str, list[float]] = {name: [] for name in WAYS}
    cpu: dict[str, list[float]] = {name: [] for name in WAYS}
    last: dict[str, Any] = {}
    for _ in range(arguments.rounds):
        for name, engine in WAYS.items():
            reuse = not name.endswith("rebuilt")
            taken, last[name] = measure(arguments.examples, engine, graph_reuse=reuse)
            seconds[name].append(taken)
            cpu[name].append(CPU_SECONDS[-1])
    median = {name: statistics.median(values) for name, values in seconds.items()}
    for name in WAYS:
        rounds = ", ".join(f"{value:.1f}" for value in seconds[name])
        report = last[name]
        where = (
            f"{report.examples_on_reference} on the reference engine, "
            f"{report.confirmed_on_graph} confirmed on the graph"
            if WAYS[name] == "auto"
            else "all on the graph"
        )
        print(
            f"check_fail_closed x{arguments.examples} on deepagents, {name}: "
            f"median {median[name]:.1f} s ({where})"
        )
        print(f"  rounds: {rounds}; CPU median {statistics.median(cpu[name]):.1f} s")
    for before, after in (("graph-rebuilt", "graph"), ("fast-rebuilt", "fast")):
        ratios = sorted(b / a for b, a in zip(seconds[before], seconds[after], strict=True))
        print(
            f"{before} / {after}: median {statistics.median(ratios):.2f}x "
            f"({ratios[0]:.2f}-{ratios[-1]:.2f} over the rounds)"
        )
    if arguments.calls:
        for name, engine in WAYS.items():
            counted = calls(arguments.examples, engine, graph_reuse=not name.endswith("rebuilt"))
            print(f"Python calls, {name}: {counted:,}")


if __name__ == "__main__":
    main()
