"""Time bench_runtime's scenario on the Eino dialect, beside the runtime and LangChain v1,
and concurrent Eino runs under ``asyncio.gather`` beside threads and a plain loop.

The scenario is bench_runtime's (one tool call, then "done"), with three no-op handlers in
the Eino dialect: one overriding only ``wrap_model``, one only
``before_model_rewrite_state``, one only ``wrap_invokable_tool_call``. Only
``agent.run([("user", "hi")])`` is timed. The other sides come from bench_runtime, timed
interleaved with it in the same process, so the ratios compare like with like on a busy
machine.

Concurrency: N runs of the same agent (N = 1, 10, 50) as N ``arun`` under one
``asyncio.gather``, as N ``run`` on N threads, and as N ``run`` one after another; each
way is timed whole, interleaved with the other two, and reported per run. Usage::

    python benchmarks/bench_eino.py [--quick] [--json] [--calls]

``--calls`` only counts the Python calls of one run on each side (cProfile, 100 runs after a
warm-up): a load-independent measure of the dialect's own work.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_runtime as base

GOAL_EINO_OVER_RUNTIME = 1.5
CONCURRENCY = (1, 10, 50)
MESSAGES = [("user", "hi")]


def build_eino() -> Any:
    from hookproof.eino import BaseChatModelAgentMiddleware, ChatModelAgent
    from hookproof.models import ScriptedModel, call
    from hookproof.runtime import ToolMessage, tool

    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        return f"found:{query}"

    class WrapModel(BaseChatModelAgentMiddleware):
        def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
            return model

    class BeforeModel(BaseChatModelAgentMiddleware):
        def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            return ctx, state

    class WrapTool(BaseChatModelAgentMiddleware):
        def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
            return endpoint

    def turn(request: Any) -> Any:
        if any(isinstance(message, ToolMessage) for message in request.messages):
            return "done"
        return call("lookup", {"query": "x"}, id="call_0")

    return ChatModelAgent(
        model=ScriptedModel(turn),
        tools=[lookup],
        handlers=[WrapModel(), BeforeModel(), WrapTool()],
    )


def eino_answer(agent: Any) -> str:
    return checked_text(agent.run(MESSAGES))


def checked_text(run: Any) -> str:
    if run.error is not None:
        raise run.error
    return str(run.text)


# --- one run beside the runtime --------------------------------------------------------------


def bench_runs(quick: bool, with_langchain: bool) -> dict[str, base.Timing]:
    eino, runtime = build_eino(), base.build_hookproof()
    base.check_answer("eino", eino_answer(eino))
    base.check_answer("runtime", base.hookproof_answer(runtime))
    calls: dict[str, tuple[Callable[[], object], int]] = {
        "eino run": (lambda: eino.run(MESSAGES), 50),
        "runtime invoke": (lambda: runtime.invoke(base.INPUT), 50),
    }
    if with_langchain:
        chain = base.build_langchain()
        base.check_answer("langchain", base.langchain_answer(chain))
        calls["langchain invoke"] = (lambda: chain.invoke(base.INPUT), 5)
    return base.time_interleaved(calls, rounds=4 if quick else 30)


def bench_cpu(quick: bool) -> dict[str, float]:
    """eino/runtime from this thread's CPU time per round (median and range of the rounds'
    own ratios): steadier than wall-clock medians on a busy machine."""
    eino, runtime = build_eino(), base.build_hookproof()
    calls: dict[str, tuple[Callable[[], object], int]] = {
        "eino run": (lambda: eino.run(MESSAGES), 100),
        "runtime invoke": (lambda: runtime.invoke(base.INPUT), 100),
    }
    found = base.cpu_rounds(calls, rounds=5 if quick else 21)
    return base.round_ratios(found["eino run"], found["runtime invoke"])


def python_calls(runs: int = 100) -> dict[str, float]:
    """Python calls per run as cProfile counts them (builtins included), for each side: a
    count the machine's load does not move."""
    import cProfile
    import pstats

    eino, runtime = build_eino(), base.build_hookproof()
    sides: dict[str, Callable[[], object]] = {
        "eino run": lambda: eino.run(MESSAGES),
        "runtime invoke": lambda: runtime.invoke(base.INPUT),
    }
    found = {}
    for name, call in sides.items():
        for _ in range(20):
            call()  # warm-up: per-agent caches filled, as in the timed runs
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(runs):
            call()
        profile.disable()
        found[name] = pstats.Stats(profile).total_calls / runs  # type: ignore[attr-defined]
    found["eino/runtime"] = found["eino run"] / found["runtime invoke"]
    return found


# --- concurrent runs ---------------------------------------------------------------------------


def sequential(agent: Any, count: int) -> None:
    for _ in range(count):
        checked_text(agent.run(MESSAGES))


def on_threads(agent: Any, count: int) -> None:
    threads = [threading.Thread(target=eino_answer, args=(agent,)) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


async def gathered(agent: Any, count: int) -> None:
    runs = await asyncio.gather(*(agent.arun(MESSAGES) for _ in range(count)))
    for run in runs:
        checked_text(run)


def bench_concurrency(quick: bool) -> dict[str, dict[int, dict[str, float]]]:
    """Per-run µs (median over rounds) of N runs each way, by the wall clock and in CPU
    time of the whole process (all threads: less disturbed by a busy machine), with
    gather's ratios."""
    agent = build_eino()
    rounds = 5 if quick else 25
    results: dict[str, dict[int, dict[str, float]]] = {"wall": {}, "cpu": {}}
    with asyncio.Runner() as runner:
        ways: dict[str, Callable[[int], object]] = {
            "sequential": lambda n: sequential(agent, n),
            "threads": lambda n: on_threads(agent, n),
            "gather": lambda n: runner.run(gathered(agent, n)),
        }
        for count in CONCURRENCY:
            results["wall"][count], results["cpu"][count] = _per_run_us(ways, count, rounds)
    for table in results.values():
        for row in table.values():
            row["gather/threads"] = row["gather"] / row["threads"]
            row["gather/sequential"] = row["gather"] / row["sequential"]
    return results


def _per_run_us(
    ways: dict[str, Callable[[int], object]], count: int, rounds: int
) -> tuple[dict[str, float], dict[str, float]]:
    wall: dict[str, list[float]] = {name: [] for name in ways}
    cpu: dict[str, list[float]] = {name: [] for name in ways}
    for way in ways.values():
        way(count)  # warm-up
    for _ in range(rounds):
        for name, way in ways.items():
            start, start_cpu = time.perf_counter_ns(), time.process_time_ns()
            way(count)
            cpu[name].append((time.process_time_ns() - start_cpu) / 1000 / count)
            wall[name].append((time.perf_counter_ns() - start) / 1000 / count)
    return _medians(wall), _medians(cpu)


def _medians(samples: dict[str, list[float]]) -> dict[str, float]:
    return {name: statistics.median(found) for name, found in samples.items()}


# --- driver --------------------------------------------------------------------------------


def ratios(timings: dict[str, base.Timing]) -> dict[str, float]:
    eino = timings["eino run"].median_us
    found = {"eino/runtime": eino / timings["runtime invoke"].median_us}
    if "langchain invoke" in timings:
        found["langchain/eino"] = timings["langchain invoke"].median_us / eino
    return found


def report(
    timings: dict[str, base.Timing],
    found: dict[str, float],
    cpu: dict[str, float],
    concurrency: Any,
) -> None:
    for timing in timings.values():
        print(
            f"{timing.name:<18} median {timing.median_us:9.1f} µs  p90 {timing.p90_us:9.1f} µs"
            f"  ({timing.iterations} runs)"
        )
    goal = found["eino/runtime"] <= GOAL_EINO_OVER_RUNTIME
    print(
        f"ratio eino/runtime     {found['eino/runtime']:6.2f}x  "
        f"(goal <= {GOAL_EINO_OVER_RUNTIME}x: {'met' if goal else 'not met'})"
    )
    print(base.goal_line("eino/runtime, CPU", cpu, GOAL_EINO_OVER_RUNTIME, "<="))
    if "langchain/eino" in found:
        print(f"ratio langchain/eino   {found['langchain/eino']:6.2f}x  (eino faster by)")
    for clock, title in (("wall", "wall clock"), ("cpu", "process CPU, all threads")):
        print(f"\nconcurrent runs, µs per run, median ({title}):")
        header = ("N", 4), ("sequential", 11), ("threads", 9), ("gather", 9), ("g/threads", 10)
        print(" ".join(f"{name:>{width}}" for name, width in header), f"{'g/seq':>7}")
        for count, row in concurrency[clock].items():
            print(
                f"{count:>4} {row['sequential']:>11.1f} {row['threads']:>9.1f}"
                f" {row['gather']:>9.1f} {row['gather/threads']:>9.2f}x"
                f" {row['gather/sequential']:>6.2f}x"
            )


def _calls_text(counted: dict[str, float]) -> str:
    return (
        f"Python calls per run (cProfile): eino {counted['eino run']:.0f}, runtime "
        f"{counted['runtime invoke']:.0f}, eino/runtime {counted['eino/runtime']:.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations (smoke run)")
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    parser.add_argument(
        "--calls", action="store_true", help="only count Python calls per run (cProfile)"
    )
    args = parser.parse_args()
    if args.calls:
        counted = python_calls()
        print(json.dumps(counted, indent=2) if args.json else _calls_text(counted))
        return
    timings = bench_runs(args.quick, base.langchain_available())
    found = ratios(timings)
    cpu = bench_cpu(args.quick)
    concurrency = bench_concurrency(args.quick)
    if args.json:
        data = {
            "timings": {name: asdict(timing) for name, timing in timings.items()},
            "ratios": found,
            "eino/runtime_cpu_rounds": cpu,
            "goal_eino_over_runtime": GOAL_EINO_OVER_RUNTIME,
            "concurrency_us_per_run": {
                clock: {str(n): row for n, row in table.items()}
                for clock, table in concurrency.items()
            },
        }
        print(json.dumps(data, indent=2))
        return
    report(timings, found, cpu, concurrency)


if __name__ == "__main__":
    main()
