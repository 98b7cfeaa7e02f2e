"""Time one agent scenario on hookproof's reference runtime and on LangChain v1.

Scenario (the same on both sides): one tool ``lookup(query) -> f"found:{query}"``; the model
calls ``lookup({"query": "x"})`` on its first turn and answers ``"done"`` on its second; three
no-op middleware (wrap_model_call only, before_model only, wrap_tool_call only). Each agent is
built once; only ``agent.invoke({"messages": [("user", "hi")]})`` is timed. Both models are
stateless functions of the request (tool call if no tool result yet, else "done"), so every
invoke sees the same two turns without any reset.

Also reports the cost of ``import hookproof`` in a fresh interpreter and which heavy modules
it loaded. Usage::

    python benchmarks/bench_runtime.py [--quick] [--json]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"
if SRC.is_dir() and str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))  # benchmark the working tree even when not pip-installed

HEAVY_MODULES = ("langchain", "langchain_core", "langgraph", "hypothesis", "syrupy", "jinja2")
INPUT: dict[str, Any] = {"messages": [("user", "hi")]}
GOAL_OVER_LANGCHAIN = 100.0  # issue #31: invoke at least this many times faster than LangChain
GOAL_OVER_BARE_LOOP = 10.0  # ... and at most this many times the bare loop


@dataclass(frozen=True)
class Timing:
    """Summary of one timed loop, in microseconds per call."""

    name: str
    iterations: int
    median_us: float
    p90_us: float
    min_us: float


@dataclass(frozen=True)
class ImportReport:
    """Cost of ``import hookproof`` in a fresh interpreter, and what it pulled in."""

    runs: int
    wall_ms: float
    importtime_ms: float
    runtime_wall_ms: float
    heavy_loaded: list[str]
    pydantic_loaded: bool


# --- timing helpers ------------------------------------------------------------------------


def summarize(name: str, samples_ns: Sequence[int]) -> Timing:
    ordered = sorted(samples_ns)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return Timing(
        name=name,
        iterations=len(ordered),
        median_us=statistics.median(ordered) / 1000,
        p90_us=p90 / 1000,
        min_us=ordered[0] / 1000,
    )


def time_calls(name: str, fn: Callable[[], object], warmup: int, iterations: int) -> Timing:
    """Call ``fn`` ``warmup`` times untimed, then time each of ``iterations`` calls."""
    for _ in range(warmup):
        fn()
    gc.collect()
    samples: list[int] = []
    clock = time.perf_counter_ns
    for _ in range(iterations):
        start = clock()
        fn()
        samples.append(clock() - start)
    return summarize(name, samples)


def time_interleaved(
    calls: dict[str, tuple[Callable[[], object], int]], rounds: int
) -> dict[str, Timing]:
    """Time each side in ``rounds`` alternating blocks (``block`` calls per side per round),
    so a busy machine slows every side alike; each call is one sample."""
    samples: dict[str, list[int]] = {name: [] for name in calls}
    clock = time.perf_counter_ns
    for fn, block in calls.values():
        for _ in range(max(block // 4, 5)):
            fn()  # warm-up
    gc.collect()
    for _ in range(rounds):
        for name, (fn, block) in calls.items():
            bucket = samples[name]
            for _ in range(block):
                start = clock()
                fn()
                bucket.append(clock() - start)
    return {name: summarize(name, found) for name, found in samples.items()}


def cpu_rounds(
    calls: dict[str, tuple[Callable[[], object], int]], rounds: int
) -> dict[str, list[float]]:
    """Per round and side, this thread's CPU time per call in µs (``block`` calls in a row):
    time the machine gives other processes is not counted, so the rounds' ratios hold on a
    busy machine better than wall-clock medians do."""
    clock = time.thread_time_ns
    found: dict[str, list[float]] = {name: [] for name in calls}
    for fn, block in calls.values():
        for _ in range(max(block // 4, 5)):
            fn()  # warm-up
    gc.collect()
    for _ in range(rounds):
        for name, (fn, block) in calls.items():
            start = clock()
            for _ in range(block):
                fn()
            found[name].append((clock() - start) / block / 1000)
    return found


def round_ratios(over: Sequence[float], under: Sequence[float]) -> dict[str, float]:
    """The rounds' own ratios ``over/under``: median and range."""
    each = [a / b for a, b in zip(over, under, strict=True)]
    return {"median": statistics.median(each), "min": min(each), "max": max(each)}


# --- the floor: the same scenario as a bare Python loop -------------------------------------


def bare_loop() -> str:
    """The scenario's work with nothing of an engine: plain dicts, direct calls, no checks,
    no trace, no state reducers. What an invoke could cost at the very least in Python."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "hi"}]

    def lookup(query: str) -> str:
        return f"found:{query}"

    def model(history: list[dict[str, Any]]) -> dict[str, Any]:
        if any(item["role"] == "tool" for item in history):
            return {"role": "assistant", "content": "done", "tool_calls": []}
        call = {"name": "lookup", "args": {"query": "x"}, "id": "call_0"}
        return {"role": "assistant", "content": "", "tool_calls": [call]}

    def wrap_model(request: Any, handler: Callable[[Any], Any]) -> Any:
        return handler(request)

    def before_model(state: Any) -> None:
        return None

    def wrap_tool(request: Any, handler: Callable[[Any], Any]) -> Any:
        return handler(request)

    while True:
        before_model(messages)
        reply = wrap_model(list(messages), model)
        messages.append(reply)
        if not reply["tool_calls"]:
            return str(reply["content"])
        for call in reply["tool_calls"]:
            result = wrap_tool(call, lambda c: lookup(**c["args"]))
            messages.append({"role": "tool", "content": result, "tool_call_id": call["id"]})


# --- hookproof side ------------------------------------------------------------------------


def build_hookproof() -> Any:
    from hookproof.runtime import create_agent

    model, tools, middleware = hookproof_parts()
    return create_agent(model, tools, middleware=middleware)


def hookproof_parts() -> tuple[Any, list[Any], list[Any]]:
    """The scenario's model, tools and middleware (wrap_model_call, before_model,
    wrap_tool_call), each made anew."""
    from hookproof.models import ScriptedModel, call
    from hookproof.runtime import AgentMiddleware, ToolMessage, tool

    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        return f"found:{query}"

    class WrapModel(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

    class BeforeModel(AgentMiddleware):
        def before_model(self, state: Any, runtime: Any) -> None:
            return None

    class WrapTool(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

    def turn(request: Any) -> Any:
        if any(isinstance(message, ToolMessage) for message in request.messages):
            return "done"
        return call("lookup", {"query": "x"}, id="call_0")

    return ScriptedModel(turn), [lookup], [WrapModel(), BeforeModel(), WrapTool()]


def hookproof_answer(agent: Any) -> str:
    return str(agent.invoke(INPUT).text)


# --- LangChain side ------------------------------------------------------------------------


def langchain_available() -> bool:
    try:
        import langchain.agents  # noqa: F401
    except ImportError:
        return False
    return True


def make_langchain_model() -> Any:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    class ScriptedToolModel(BaseChatModel):
        """Tool call while no tool result is present, then "done"; bind_tools is a no-op."""

        @property
        def _llm_type(self) -> str:
            return "scripted-tool-model"

        def _generate(
            self,
            messages: list[BaseMessage],
            stop: Any = None,
            run_manager: Any = None,
            **kwargs: Any,
        ) -> ChatResult:
            if any(isinstance(message, ToolMessage) for message in messages):
                reply = AIMessage(content="done")
            else:
                tool_call = {"id": "call_0", "name": "lookup", "args": {"query": "x"}}
                reply = AIMessage(content="", tool_calls=[tool_call])
            return ChatResult(generations=[ChatGeneration(message=reply)])

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    return ScriptedToolModel()


def build_langchain() -> Any:
    from langchain.agents import create_agent
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.tools import tool

    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        return f"found:{query}"

    class WrapModel(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

    class BeforeModel(AgentMiddleware):
        def before_model(self, state: Any, runtime: Any) -> None:
            return None

    class WrapTool(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

    model = make_langchain_model()
    return create_agent(model, [lookup], middleware=[WrapModel(), BeforeModel(), WrapTool()])


def langchain_answer(agent: Any) -> str:
    return str(agent.invoke(INPUT)["messages"][-1].content)


# --- import cost ---------------------------------------------------------------------------


def run_python(code: str, *flags: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    command = [sys.executable, *flags, "-c", code]
    return subprocess.run(command, env=env, capture_output=True, text=True, check=True)


def wall_ms(code: str) -> float:
    start = time.perf_counter_ns()
    run_python(code)
    return (time.perf_counter_ns() - start) / 1e6


def importtime_ms(module: str) -> float:
    """Cumulative time ``python -X importtime`` reports for ``module`` itself."""
    stderr = run_python(f"import {module}", "-X", "importtime").stderr
    for line in stderr.splitlines():
        parts = [part.strip() for part in line.removeprefix("import time:").split("|")]
        if len(parts) == 3 and parts[2] == module:
            return int(parts[1]) / 1000
    raise RuntimeError(f"no importtime line for {module!r}")


def extra_wall_ms(code: str, runs: int) -> float:
    """Median over ``runs`` of wall(code) - wall(pass), the two run back to back each time."""
    differences = []
    for _ in range(runs):
        bare = wall_ms("pass")
        differences.append(wall_ms(code) - bare)
    return statistics.median(differences)


def loaded_modules() -> tuple[list[str], bool]:
    code = "import sys, hookproof; print('\\n'.join(sys.modules))"
    names = set(run_python(code).stdout.split())
    tops = {name.partition(".")[0] for name in names}
    return sorted(tops.intersection(HEAVY_MODULES)), "pydantic" in tops


def measure_import(runs: int) -> ImportReport:
    run_python("import hookproof.runtime")  # warm the OS file cache and the .pyc files
    heavy, pydantic = loaded_modules()
    return ImportReport(
        runs=runs,
        wall_ms=extra_wall_ms("import hookproof", runs),
        importtime_ms=statistics.median(importtime_ms("hookproof") for _ in range(runs)),
        runtime_wall_ms=extra_wall_ms("import hookproof.runtime", runs),
        heavy_loaded=heavy,
        pydantic_loaded=pydantic,
    )


# --- driver --------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Time hookproof vs LangChain agent.invoke.")
    parser.add_argument("--quick", action="store_true", help="fewer iterations (smoke run)")
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    return parser.parse_args(argv)


def check_answer(side: str, answer: object) -> None:
    """Refuse to time a scenario that does not end in "done" (survives python -O)."""
    if answer != "done":
        raise RuntimeError(f"{side} answered {answer!r}, expected 'done'")


def bench_invokes(quick: bool, with_langchain: bool) -> dict[str, Timing]:
    """agent.invoke on both sides and the bare loop, interleaved in one process."""
    agent = build_hookproof()
    check_answer("hookproof", hookproof_answer(agent))
    check_answer("bare loop", bare_loop())
    calls: dict[str, tuple[Callable[[], object], int]] = {
        "hookproof": (lambda: agent.invoke(INPUT), 100),
        "bare loop": (bare_loop, 100),
    }
    if with_langchain:
        lc_agent = build_langchain()
        check_answer("langchain", langchain_answer(lc_agent))
        calls["langchain"] = (lambda: lc_agent.invoke(INPUT), 10)
    return time_interleaved(calls, rounds=3 if quick else 20)


def bench_builds(quick: bool, with_langchain: bool) -> dict[str, Timing]:
    builds = {
        "hookproof build": time_calls("hookproof build", build_hookproof, 5, 20 if quick else 200)
    }
    if with_langchain:
        builds["langchain build"] = time_calls(
            "langchain build", build_langchain, 2, 5 if quick else 20
        )
    return builds


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {"python": sys.version.split()[0]}
    for name in ("hookproof", "pydantic", "langchain", "langchain-core", "langgraph"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "source tree" if name == "hookproof" else "absent"
    return found


def collect(quick: bool) -> dict[str, Any]:
    results: dict[str, Any] = {"quick": quick, "versions": versions()}
    with_langchain = langchain_available()
    invokes = bench_invokes(quick, with_langchain)
    builds = bench_builds(quick, with_langchain)
    hp = invokes["hookproof"]
    results["hookproof"] = {"invoke": asdict(hp), "build": asdict(builds["hookproof build"])}
    results["bare_loop"] = asdict(invokes["bare loop"])
    results["ratio_hookproof_over_bare_loop"] = hp.median_us / invokes["bare loop"].median_us
    if with_langchain:
        lc = invokes["langchain"]
        results["langchain"] = {"invoke": asdict(lc), "build": asdict(builds["langchain build"])}
        results["ratio_langchain_over_hookproof"] = lc.median_us / hp.median_us
    else:
        results["langchain"] = None
    results["cpu_rounds"] = bench_cpu(quick, with_langchain)
    results["import"] = asdict(measure_import(5 if quick else 21))
    return results


def bench_cpu(quick: bool, with_langchain: bool) -> dict[str, Any]:
    """The goals' ratios from CPU time per round: hookproof over the bare loop, LangChain
    over hookproof (median and range of the rounds' own ratios)."""
    agent = build_hookproof()
    calls: dict[str, tuple[Callable[[], object], int]] = {
        "hookproof": (lambda: agent.invoke(INPUT), 100),
        "bare loop": (bare_loop, 1000),
    }
    if with_langchain:
        lc_agent = build_langchain()
        calls["langchain"] = (lambda: lc_agent.invoke(INPUT), 5)
    found = cpu_rounds(calls, rounds=5 if quick else 21)
    summary: dict[str, Any] = {
        "us_per_call": {name: statistics.median(values) for name, values in found.items()},
        "hookproof/bare loop": round_ratios(found["hookproof"], found["bare loop"]),
    }
    if with_langchain:
        summary["langchain/hookproof"] = round_ratios(found["langchain"], found["hookproof"])
    return summary


def format_timing(timing: dict[str, Any]) -> str:
    return (
        f"  {timing['name']:<16} median {timing['median_us']:>10.1f} µs   "
        f"p90 {timing['p90_us']:>10.1f} µs   min {timing['min_us']:>10.1f} µs   "
        f"(n={timing['iterations']})"
    )


def report(results: dict[str, Any]) -> None:
    print("versions: " + ", ".join(f"{k} {v}" for k, v in results["versions"].items()))
    print("agent.invoke (scenario: 2 model turns, 1 tool call, 3 no-op middleware), interleaved:")
    print(format_timing(results["hookproof"]["invoke"]))
    print(format_timing(results["bare_loop"]))
    print(f"  ratio hookproof/bare loop (median): {results['ratio_hookproof_over_bare_loop']:.1f}x")
    if results["langchain"] is None:
        print("  langchain        skipped: langchain is not importable")
    else:
        print(format_timing(results["langchain"]["invoke"]))
        ratio = results["ratio_langchain_over_hookproof"]
        print(f"  ratio langchain/hookproof (median): {ratio:.1f}x")
    cpu = results["cpu_rounds"]
    print("the goals, from this thread's CPU time per round (median [range] of round ratios):")
    us = ", ".join(f"{name} {value:.1f} µs" for name, value in cpu["us_per_call"].items())
    print(f"  per call (median): {us}")
    print(goal_line("hookproof/bare loop", cpu["hookproof/bare loop"], GOAL_OVER_BARE_LOOP, "<="))
    if "langchain/hookproof" in cpu:
        found = cpu["langchain/hookproof"]
        print(goal_line("langchain/hookproof", found, GOAL_OVER_LANGCHAIN, ">="))
    print("create_agent (build, not part of the invoke numbers):")
    print(format_timing(results["hookproof"]["build"]))
    if results["langchain"] is not None:
        print(format_timing(results["langchain"]["build"]))
    imp = results["import"]
    print(f"import cost, fresh interpreter, median of {imp['runs']} runs:")
    over_bare = "ms wall, minus `python -c pass`"
    print(f"  import hookproof          {imp['wall_ms']:6.1f} {over_bare}")
    print(f"  import hookproof          {imp['importtime_ms']:6.1f} ms cumulative, -X importtime")
    print(f"  import hookproof.runtime  {imp['runtime_wall_ms']:6.1f} {over_bare}")
    heavy = ", ".join(imp["heavy_loaded"]) or "none"
    print(f"  heavy modules loaded by import hookproof: {heavy}")
    print(f"  pydantic loaded by import hookproof: {'yes' if imp['pydantic_loaded'] else 'no'}")


def goal_line(name: str, found: dict[str, float], goal: float, sense: str) -> str:
    met = found["median"] <= goal if sense == "<=" else found["median"] >= goal
    return (
        f"  {name:<20} {found['median']:7.1f}x [{found['min']:.1f}-{found['max']:.1f}]"
        f"   goal {sense} {goal:g}x: {'met' if met else 'not met'}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    results = collect(args.quick)
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
    else:
        report(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
