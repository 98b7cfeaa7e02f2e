"""``ainvoke`` against ``invoke`` on bench_runtime's scenario, in one process.

Two agents, both bench_runtime's scenario (a tool call, then "done"; three no-op
middleware): one whose wrap hooks are synchronous only (``wrap_model_call``,
``wrap_tool_call``), as bench_runtime defines them, and one whose wrap hooks also have their
async twins (``awrap_model_call``, ``awrap_tool_call``). Under ``ainvoke`` a synchronous wrap
hook runs on a helper thread (with the synchronous inside of its handler), while the event
loop's thread waits for it briefly (at most 1 ms) before freeing the loop; an async twin is
awaited on the loop itself.

Rounds alternate ``invoke`` and ``ainvoke`` (all ``ainvoke`` calls on one event loop) for
each agent; per call, the median and range of the rounds' process CPU time is printed, and the
ratio ainvoke / invoke (goal: at most 1.5). ``--count`` prints instead what does not depend on
the machine's load, per ``ainvoke``: the calls handed to a helper thread (each a round trip
between two threads), the times a helper thread woke the event loop (a round trip through
the loop: a hook that outlasted the brief wait, or an asynchronous inside), the Python
function calls made on every thread (a profile hook counting ``call`` events, coroutine
resumptions included), and the context switches of the process (``getrusage``: voluntary
and involuntary, every thread; the load moves them a little). Usage::

    python benchmarks/bench_ainvoke.py [--quick] [--json] [--count]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_runtime as base

GOAL = 1.5


def build_with_async_twins() -> Any:
    from hookproof.models import ScriptedModel, call
    from hookproof.runtime import AgentMiddleware, ToolMessage, create_agent, tool

    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        return f"found:{query}"

    class WrapModel(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

        async def awrap_model_call(self, request: Any, handler: Any) -> Any:
            return await handler(request)

    class BeforeModel(AgentMiddleware):
        def before_model(self, state: Any, runtime: Any) -> None:
            return None

    class WrapTool(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

        async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
            return await handler(request)

    def turn(request: Any) -> Any:
        if any(isinstance(message, ToolMessage) for message in request.messages):
            return "done"
        return call("lookup", {"query": "x"}, id="call_0")

    return create_agent(
        ScriptedModel(turn), [lookup], middleware=[WrapModel(), BeforeModel(), WrapTool()]
    )


def sync_calls(agent: Any, count: int) -> float:
    """Process CPU µs per ``invoke``."""
    start = time.process_time_ns()
    for _ in range(count):
        agent.invoke(base.INPUT)
    return (time.process_time_ns() - start) / count / 1e3


async def async_calls(agent: Any, count: int) -> float:
    """Process CPU µs per ``ainvoke`` (CPU of every thread, helper threads included)."""
    start = time.process_time_ns()
    for _ in range(count):
        await agent.ainvoke(base.INPUT)
    return (time.process_time_ns() - start) / count / 1e3


def checked(agent: Any, loop: asyncio.AbstractEventLoop) -> None:
    texts = {agent.invoke(base.INPUT).text, loop.run_until_complete(agent.ainvoke(base.INPUT)).text}
    if texts != {"done"}:
        raise RuntimeError(f"the scenario ended with {texts}")


def measure(agent: Any, loop: asyncio.AbstractEventLoop, rounds: int, count: int) -> dict[str, Any]:
    checked(agent, loop)
    sync_calls(agent, count // 4)
    loop.run_until_complete(async_calls(agent, count // 4))
    sync_us, async_us = [], []
    for _ in range(rounds):
        sync_us.append(sync_calls(agent, count))
        async_us.append(loop.run_until_complete(async_calls(agent, count)))
    per_round = [a / s for a, s in zip(async_us, sync_us, strict=True)]
    return {
        "invoke_us": _summary(sync_us),
        "ainvoke_us": _summary(async_us),
        "ratio": statistics.median(async_us) / statistics.median(sync_us),
        "ratio_range": [min(per_round), max(per_round)],
    }


class _CountingLoop(asyncio.SelectorEventLoop):
    """Counts the times another thread woke the loop (a helper thread handing back)."""

    woken = 0

    def call_soon_threadsafe(self, *args: Any, **kwargs: Any) -> Any:
        self.woken += 1
        return super().call_soon_threadsafe(*args, **kwargs)


def counted_per_run(agents: dict[str, Any], runs: int) -> dict[str, dict[str, float]]:
    """Per ``ainvoke`` of each agent: event-loop wake-ups from helper threads and Python calls
    on every thread (the profile hook is set before the first helper thread starts); and the
    Python calls per ``invoke``."""
    calls, handed = [0], [0]

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            calls[0] += 1
            if frame.f_code.co_name in ("hand_back", "_hand_back"):  # a helper thread's call, done
                handed[0] += 1

    loop = _CountingLoop()
    found = {}
    try:
        threading.setprofile(profile)
        for name, agent in agents.items():
            checked(agent, loop)
            loop.woken, calls[0], handed[0] = 0, 0, 0
            sys.setprofile(profile)
            loop.run_until_complete(async_calls(agent, runs))
            sys.setprofile(None)
            found[name] = {
                "helper_calls": handed[0] / runs,
                "loop_wakeups": loop.woken / runs,
                "python_calls": calls[0] / runs,
            }
            calls[0] = 0
            sys.setprofile(profile)
            sync_calls(agent, runs)
            sys.setprofile(None)
            found[name]["invoke_python_calls"] = calls[0] / runs
            found[name]["context_switches"] = _switches(loop, agent, runs * 10)
    finally:
        threading.setprofile(None)  # type: ignore[arg-type]
        loop.close()
    return found


def _switches(loop: asyncio.AbstractEventLoop, agent: Any, runs: int) -> float:
    """Context switches of the process per ``ainvoke`` (no profile hook set)."""

    def switches() -> int:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_nvcsw + usage.ru_nivcsw

    before = switches()
    loop.run_until_complete(async_calls(agent, runs))
    return (switches() - before) / runs


def _summary(samples: list[float]) -> dict[str, float]:
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples)}


def main() -> None:
    parser = argparse.ArgumentParser(description="Time ainvoke against invoke.")
    parser.add_argument("--quick", action="store_true", help="3 rounds of 50 calls")
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    parser.add_argument(
        "--count", action="store_true", help="count loop wake-ups and Python calls per ainvoke"
    )
    args = parser.parse_args()
    rounds, count = (3, 50) if args.quick else (7, 300)
    agents = {"sync wrap hooks": base.build_hookproof(), "async twins": build_with_async_twins()}
    if args.count:
        counted = counted_per_run(agents, 20)
        if args.json:
            print(json.dumps(counted, indent=2))
            return
        for name, numbers in counted.items():
            print(
                f"{name}: {numbers['helper_calls']:.0f} calls on helper threads, "
                f"{numbers['loop_wakeups']:.0f} event-loop wake-ups from helper "
                f"threads, {numbers['python_calls']:.0f} Python calls per ainvoke "
                f"({numbers['invoke_python_calls']:.0f} per invoke), "
                f"{numbers['context_switches']:.1f} context switches per ainvoke"
            )
        return
    loop = asyncio.new_event_loop()
    try:
        found = {name: measure(agent, loop, rounds, count) for name, agent in agents.items()}
    finally:
        loop.close()
    if args.json:
        print(json.dumps(found, indent=2))
        return
    for name, result in found.items():
        sync, run = result["invoke_us"], result["ainvoke_us"]
        low, high = result["ratio_range"]
        verdict = "ok" if result["ratio"] <= GOAL else f"over the goal of {GOAL}"
        print(
            f"{name}: invoke {sync['median']:.0f} µs [{sync['min']:.0f}–{sync['max']:.0f}], "
            f"ainvoke {run['median']:.0f} µs [{run['min']:.0f}–{run['max']:.0f}], "
            f"ratio {result['ratio']:.2f} [rounds {low:.2f}–{high:.2f}]: {verdict}"
        )


if __name__ == "__main__":
    main()
