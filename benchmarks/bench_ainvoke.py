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
and involuntary, every thread; the load moves them a little). ``--floor`` prints what the
hand-offs alone cost: an asyncio program making exactly the run's hand-offs (as many per run
as an ``ainvoke`` of the sync-hooks agent makes, counted first) with the engine's own helper
threads and bells, each around a call that does nothing, timed in rounds interleaved with
``invoke``, ``ainvoke`` and the async twins' ``ainvoke``; each as a fraction of ``invoke``,
with what is left of the 1.5x budget once the hand-offs are paid. Usage::

    python benchmarks/bench_ainvoke.py [--quick] [--json] [--count | --floor]
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


def handoffs_per_run(agent: Any, loop: asyncio.AbstractEventLoop, runs: int) -> float:
    """The hand-offs to a helper thread per ``ainvoke``: the jobs the engine's helper pool
    was given (a plain function, called once per job; ``in_thread`` is a coroutine, which a
    profile hook sees again each time it resumes)."""
    from hookproof._engine.workers import _Workers

    found = [0]
    code = _Workers.submit.__code__

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code is code:
            found[0] += 1

    sys.setprofile(profile)
    try:
        loop.run_until_complete(async_calls(agent, runs))
    finally:
        sys.setprofile(None)
    return found[0] / runs


async def bare_handoffs(handoffs: int, count: int) -> float:
    """Process CPU µs per "run" of ``handoffs`` bare hand-offs: the engine's own hand-off
    (``in_thread``, brief wait on) loop -> helper -> loop, around a call that does nothing."""
    from hookproof._engine.workers import in_thread  # the engine's own machinery, on purpose

    loop = asyncio.get_running_loop()
    start = time.process_time_ns()
    for _ in range(count):
        for _ in range(handoffs):
            await in_thread(_nothing, loop=loop, brief=True)
    return (time.process_time_ns() - start) / count / 1e3


def _nothing() -> int:
    return threading.get_ident()


def checked_floor(handoffs: int, loop: asyncio.AbstractEventLoop) -> None:
    """The floor would be no floor if the scenario made no hand-off, or if its calls ran on
    the loop's own thread."""
    from hookproof._engine.workers import in_thread

    if handoffs < 1 or handoffs != int(handoffs):
        raise RuntimeError(
            f"the sync-hooks agent made {handoffs} hand-offs per ainvoke: no whole number of "
            "hand-offs to measure the floor with (did the engine stop handing off?)"
        )
    helper = loop.run_until_complete(in_thread(_nothing, loop=loop, brief=True))
    if helper == threading.get_ident():
        raise RuntimeError("the bare hand-off ran on the loop's own thread: no hand-off timed")


def measure_floor(agents: dict[str, Any], rounds: int, count: int) -> dict[str, Any]:
    """Interleaved rounds: invoke, ainvoke (sync wrap hooks), the bare hand-offs of one
    such ainvoke, ainvoke (async twins); each against invoke, per round."""
    sync_agent, twins = agents["sync wrap hooks"], agents["async twins"]
    loop = asyncio.new_event_loop()
    try:
        checked(sync_agent, loop)
        checked(twins, loop)
        handoffs = handoffs_per_run(sync_agent, loop, 20)
        checked_floor(handoffs, loop)
        calls = {
            "invoke": lambda n: sync_calls(sync_agent, n),
            "ainvoke": lambda n: loop.run_until_complete(async_calls(sync_agent, n)),
            "handoffs": lambda n: loop.run_until_complete(bare_handoffs(int(handoffs), n)),
            "twins": lambda n: loop.run_until_complete(async_calls(twins, n)),
        }
        for call in calls.values():
            call(count // 4)
        samples: dict[str, list[float]] = {name: [] for name in calls}
        for _ in range(rounds):
            for name, call in calls.items():
                samples[name].append(call(count))
    finally:
        loop.close()
    return _floor_summary(handoffs, samples)


def _floor_summary(handoffs: float, samples: dict[str, list[float]]) -> dict[str, Any]:
    invoke = samples["invoke"]

    def over_invoke(values: list[float]) -> dict[str, float]:
        ratios = [value / base for value, base in zip(values, invoke, strict=True)]
        return {"median": statistics.median(ratios), "min": min(ratios), "max": max(ratios)}

    own = [a - h for a, h in zip(samples["ainvoke"], samples["handoffs"], strict=True)]
    return {
        "handoffs_per_ainvoke": handoffs,
        "us": {name: _summary(values) for name, values in samples.items()},
        "over_invoke": {
            "ainvoke": over_invoke(samples["ainvoke"]),
            "handoffs": over_invoke(samples["handoffs"]),
            "ainvoke_without_handoffs": over_invoke(own),
            "async_twins": over_invoke(samples["twins"]),
        },
    }


def report_floor(found: dict[str, Any]) -> None:
    us, over = found["us"], found["over_invoke"]

    def line(label: str, name: str, ratio: str) -> str:
        value, share = us[name], over[ratio]
        return (
            f"{label}: {value['median']:.0f} µs [{value['min']:.0f}–{value['max']:.0f}], "
            f"{share['median']:.2f}x invoke [rounds {share['min']:.2f}–{share['max']:.2f}]"
        )

    handoffs = over["handoffs"]["median"]
    print(
        f"invoke: {us['invoke']['median']:.0f} µs [{us['invoke']['min']:.0f}–"
        f"{us['invoke']['max']:.0f}]"
    )
    print(line("ainvoke, sync wrap hooks", "ainvoke", "ainvoke"))
    print(line(f"  its {found['handoffs_per_ainvoke']:.0f} bare hand-offs", "handoffs", "handoffs"))
    own = over["ainvoke_without_handoffs"]
    print(
        f"  the rest (ainvoke minus its hand-offs): {own['median']:.2f}x invoke "
        f"[rounds {own['min']:.2f}–{own['max']:.2f}]"
    )
    print(line("ainvoke, async twins (no hand-off)", "twins", "async_twins"))
    print(
        f"budget of {GOAL}x: the hand-offs take {handoffs:.2f}x, which leaves "
        f"{GOAL - handoffs:.2f}x for invoke's work and the async path's own "
        f"({GOAL - 1 - handoffs:+.2f}x over invoke)"
    )


def _summary(samples: list[float]) -> dict[str, float]:
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples)}


def main() -> None:
    parser = argparse.ArgumentParser(description="Time ainvoke against invoke.")
    parser.add_argument("--quick", action="store_true", help="3 rounds of 50 calls")
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument(
        "--count", action="store_true", help="count loop wake-ups and Python calls per ainvoke"
    )
    chosen.add_argument(
        "--floor", action="store_true", help="what the hand-offs alone cost, against invoke"
    )
    args = parser.parse_args()
    rounds, count = (3, 50) if args.quick else (7, 300)
    agents = {"sync wrap hooks": base.build_hookproof(), "async twins": build_with_async_twins()}
    if args.floor:
        floor = measure_floor(agents, rounds, count)
        print(json.dumps(floor, indent=2)) if args.json else report_floor(floor)
        return
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
