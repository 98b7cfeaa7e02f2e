"""How each cost grows with the size of its input: one curve per cost, in one process.

Curves (N is the size; the goal is that 10x the work costs at most ~12x):

- ``invoke_id_history``: ``agent.invoke`` with a history of N messages that all carry ids;
  the model answers at once, so the time is the messages reducer plus the engine's
  per-message work.
- ``invoke_tool_turns``: one ``agent.invoke`` in which a scripted model calls a tool N times
  before it answers (2N model/tool steps; the history grows to 2N + 2 messages).
- ``invoke_id_tool_turns``: the same, with every assistant and tool message carrying an id
  (so every update goes through the reducer's lookup by id).
- ``langchain_turns``: the same N tool-call turns with LangChain code on the reference
  engine: a ``create_agent`` factory with a LangChain tool and a LangChain middleware
  (``before_model`` and ``wrap_model_call``), run through ``on_reference_engine``.
- ``render_provenance``: ``snapshot.render`` of a final request with provenance whose system
  prompt has N lines, every other one blank (rules separated by blank lines), a middleware
  having added one.
- ``diff_provenance``: ``snapshot.diff`` of two such renderings, the new one with 1% of the
  rules reworded by the middleware.
- ``diff_messages``: ``snapshot.diff`` of two views of N-message histories (user and
  assistant messages without ids, so ``<user>``/``<assistant>`` lines repeat N/2 times
  each), the new one with 1% of the messages edited, one inserted and one removed.
- ``diff_tools``: ``snapshot.diff`` of two views of N tools, the new one with 1% of the
  tools removed, 1% added and 1% with a changed description.

Every size of a curve is built and checked once, then timed in interleaved rounds (each
round calls every size; small sizes several times per sample), so load from elsewhere falls
on all sizes alike. For each size the median and range of the rounds are printed, with the
time per item; for each curve the growth time(largest) / time(largest / 10), as the ratio of
medians and the range of the rounds' own ratios: about 10 means linear, about 100 quadratic.
Memory: the first (untimed) call of each size runs under ``tracemalloc``, which reports its
peak of Python allocations (``peak_mib``, and its growth per curve). On a machine shared
with other work, trust these ratios, not the absolute times. Usage::

    python benchmarks/bench_scale.py [--quick] [--json] [--only a,b] [--sizes 100,1000]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"
if SRC.is_dir() and str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))  # benchmark the working tree even when not pip-installed

GOAL_GROWTH = 12.0  # 10x the work costs at most about this much
ROUNDS, QUICK_ROUNDS = 5, 3

Timed = Callable[[], object]


@dataclass(frozen=True)
class Point:
    """One size on a curve: the median, least and greatest wall time of its rounds, and the
    median CPU time (steadier than wall time on a machine other processes keep busy)."""

    size: int
    rounds: int
    median_ms: float
    min_ms: float
    max_ms: float
    per_item_us: float
    cpu_median_ms: float
    peak_mib: float  # tracemalloc's peak during the first, untimed call


@dataclass(frozen=True)
class Growth:
    ratio: float  # median(largest) / median(largest / 10)
    round_min: float  # the least and greatest ratio within one round
    round_max: float
    cpu_ratio: float
    peak_ratio: float  # peak memory(largest) / peak memory(largest / 10)


@dataclass(frozen=True)
class Curve:
    name: str
    points: list[Point]
    growth: Growth | None
    growth_between: tuple[int, int] | None


# --- scenarios: each returns the call to time, already checked once --------------------------


def invoke_id_history(size: int) -> Timed:
    from hookproof.models import ScriptedModel
    from hookproof.runtime import UserMessage, create_agent

    agent = create_agent(ScriptedModel(lambda request: "done"))
    history = [UserMessage(content=f"message {index}", id=f"m{index}") for index in range(size)]
    inputs = {"messages": history}

    def run() -> object:
        result = agent.invoke(inputs)
        if len(result.messages) != size + 1 or result.text != "done":
            raise RuntimeError(f"invoke_id_history({size}) ended with {result!r}")
        return result

    return run


def invoke_tool_turns(size: int) -> Timed:
    from hookproof.models import ScriptedModel, call
    from hookproof.runtime import create_agent, tool

    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        return f"found:{query}"

    played = [0]

    def turn(request: object) -> Any:
        index = played[0]
        played[0] += 1
        return "done" if index == size else call("lookup", {"query": "x"}, id=f"call_{index}")

    agent = create_agent(ScriptedModel(turn), [lookup], max_iterations=size + 2)
    inputs = {"messages": [("user", "hi")]}

    def run() -> object:
        played[0] = 0
        result = agent.invoke(inputs)
        if len(result.messages) != 2 * size + 2 or result.text != "done":
            raise RuntimeError(f"invoke_tool_turns({size}) ended with {result!r}")
        return result

    return run


def invoke_id_tool_turns(size: int) -> Timed:
    from hookproof.messages import AssistantMessage, ToolCall
    from hookproof.models import ScriptedModel
    from hookproof.runtime import create_agent, tool

    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        return f"found:{query}"

    played = [0]

    def turn(request: object) -> Any:
        index = played[0]
        played[0] += 1
        if index == size:
            return AssistantMessage(content="done", id=f"a{index}")
        asked = ToolCall(name="lookup", args={"query": "x"}, id=f"call_{index}")
        return AssistantMessage(content="", tool_calls=[asked], id=f"a{index}")

    agent = create_agent(ScriptedModel(turn), [lookup], max_iterations=size + 2)
    inputs = {"messages": [("user", "hi")]}

    def run() -> object:
        played[0] = 0
        result = agent.invoke(inputs)
        if len(result.messages) != 2 * size + 2 or result.text != "done":
            raise RuntimeError(f"invoke_id_tool_turns({size}) ended with {result!r}")
        return result

    return run


def langchain_turns(size: int) -> Timed:
    from langchain.agents import create_agent
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.tools import tool

    from hookproof.adapters.langchain import ScriptedChatModel, on_reference_engine
    from hookproof.models import call

    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        return f"found:{query}"

    class Watching(AgentMiddleware):  # type: ignore[type-arg]
        def before_model(self, state: Any, runtime: Any) -> None:
            return None

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

    played = [0]

    def turn(request: object) -> Any:
        index = played[0]
        played[0] += 1
        return "done" if index == size else call("lookup", {"query": "x"}, id=f"call_{index}")

    def build(model: Any) -> Any:
        return create_agent(model, [lookup], middleware=[Watching()])

    agent = on_reference_engine(build)(ScriptedChatModel(turn))
    config = {"recursion_limit": 4 * size + 20}

    def run() -> object:
        played[0] = 0
        result = agent.invoke({"messages": [("user", "hi")]}, config)
        messages = result["messages"]
        if len(messages) != 2 * size + 2 or messages[-1].content != "done":
            raise RuntimeError(f"langchain_turns({size}) ended with {messages[-1]!r}")
        return result

    return run


def _prompt(size: int, reworded: set[int]) -> str:
    """``size`` lines: numbered rules, each followed by a blank line."""
    rules = [
        f"Rule {index}: answer politely." + (" Be brief." if index in reworded else "")
        for index in range(size // 2)
    ]
    return "\n".join(line for rule in rules for line in (rule, ""))


def _provenance_request(size: int, reworded: set[int]) -> Any:
    """The final request of an agent given a ``size``-line prompt, after a middleware
    rewrote the rules in ``reworded`` and added a line of its own."""
    from hookproof.models import ScriptedModel
    from hookproof.runtime import AgentMiddleware, create_agent

    class Rules(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            text = _prompt(size, reworded) + "\nAlways cite the rule."
            return handler(request.override(system_prompt=text))

    agent = create_agent(
        ScriptedModel(lambda request: "done"),
        system_prompt=_prompt(size, set()),
        middleware=[Rules()],
    )
    final = agent.invoke({"messages": [("user", "hi")]}).final_requests[-1]
    if final.provenance is None:
        raise RuntimeError("the final request carries no provenance")
    return final


def render_provenance(size: int) -> Timed:
    from hookproof.snapshot import render

    final = _provenance_request(size, set())

    def run() -> object:
        text = render(final)
        if "Rules" not in text.rpartition("provenance:")[2]:
            raise RuntimeError(f"render_provenance({size}) shows no middleware in provenance")
        return text

    return run


def diff_provenance(size: int) -> Timed:
    from hookproof.snapshot import diff, render

    before = render(_provenance_request(size, set()))
    after = render(_provenance_request(size, set(range(0, size // 2, 50))))

    def run() -> object:
        result = diff(before, after)
        if not result.changes:
            raise RuntimeError(f"diff_provenance({size}) found no change")
        return result

    return run


def _history(size: int, edited: set[int]) -> list[Any]:
    from hookproof.messages import AssistantMessage, UserMessage

    messages: list[Any] = []
    for index in range(size):
        text = f"text {index}" + (" (edited)" if index in edited else "")
        role = UserMessage if index % 2 == 0 else AssistantMessage
        messages.append(role(content=text))
    return messages


def diff_messages(size: int) -> Timed:
    from hookproof.messages import UserMessage
    from hookproof.requests import FinalRequest
    from hookproof.snapshot import diff, view

    edited = set(range(0, size, 100))
    old = _history(size, set())
    new = _history(size, edited)
    new.insert(size // 3, UserMessage(content="inserted"))
    del new[2 * size // 3]
    before = view(FinalRequest(model="m", messages=tuple(old)))
    after = view(FinalRequest(model="m", messages=tuple(new)))
    expected = len(edited) + 2

    def run() -> object:
        result = diff(before, after)
        if not expected <= len(result.changes) <= expected + 2:
            raise RuntimeError(f"diff_messages({size}) found {len(result.changes)} changes")
        return result

    return run


def _tools(names: Sequence[str], edited: set[str]) -> tuple[Any, ...]:
    from hookproof.tools import ToolSchema

    parameters = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    return tuple(
        ToolSchema(
            name=name,
            description=f"Tool {name}." + (" Now better." if name in edited else ""),
            parameters=parameters,
        )
        for name in names
    )


def diff_tools(size: int) -> Timed:
    from hookproof.requests import FinalRequest
    from hookproof.snapshot import diff, view

    names = [f"tool_{index:06d}" for index in range(size)]
    step = 100
    removed = set(names[::step])
    edited = set(names[1::step])
    added = [f"new_{index:06d}" for index in range(0, size, step)]
    kept = [name for name in names if name not in removed]
    before = view(FinalRequest(model="m", tools=_tools(names, set())))
    after = view(FinalRequest(model="m", tools=_tools(kept + added, edited)))
    expected = len(removed) + len(edited) + len(added)

    def run() -> object:
        result = diff(before, after)
        if len(result.changes) != expected:
            raise RuntimeError(f"diff_tools({size}) found {len(result.changes)} changes")
        return result

    return run


@dataclass(frozen=True)
class Scenario:
    build: Callable[[int], Timed]
    sizes: tuple[int, ...]  # the default sizes (the largest ten times another)
    needs: str | None = None  # a module it needs beyond hookproof


SCENARIOS: dict[str, Scenario] = {
    "invoke_id_history": Scenario(invoke_id_history, (1_000, 10_000)),
    "invoke_tool_turns": Scenario(invoke_tool_turns, (100, 1_000, 10_000)),
    "invoke_id_tool_turns": Scenario(invoke_id_tool_turns, (100, 1_000, 10_000)),
    "langchain_turns": Scenario(langchain_turns, (100, 1_000), "langchain"),
    "render_provenance": Scenario(render_provenance, (1_000, 10_000)),
    "diff_provenance": Scenario(diff_provenance, (1_000, 10_000)),
    "diff_messages": Scenario(diff_messages, (1_000, 10_000)),
    "diff_tools": Scenario(diff_tools, (1_000, 10_000)),
}
QUICK_SIZES = (10, 100)


# --- timing ----------------------------------------------------------------------------------


def calls_per_sample(size: int, largest: int) -> int:
    """Small sizes are called several times per sample, so a sample is not all clock noise."""
    return max(1, min(10, largest // size))


def time_once(call: Timed, repeat: int) -> tuple[float, float]:
    """Wall and CPU milliseconds of one call (the mean of ``repeat`` back-to-back calls)."""
    clock, cpu_clock = time.perf_counter_ns, time.process_time_ns
    start, cpu_start = clock(), cpu_clock()
    for _ in range(repeat):
        call()
    return (clock() - start) / 1e6 / repeat, (cpu_clock() - cpu_start) / 1e6 / repeat


def measure_curve(name: str, sizes: Sequence[int], rounds: int) -> Curve:
    """Build every size once, check each, then time them in ``rounds`` interleaved rounds
    (each round calls every size), so load from elsewhere falls on all sizes alike."""
    calls = {size: SCENARIOS[name].build(size) for size in sizes}
    peaks = {size: peak_mib_of(call) for size, call in calls.items()}  # and the check
    largest = max(sizes)
    wall: dict[int, list[float]] = {size: [] for size in sizes}
    cpu: dict[int, list[float]] = {size: [] for size in sizes}
    for _ in range(rounds):
        gc.collect()
        for size in sizes:
            spent, spent_cpu = time_once(calls[size], calls_per_sample(size, largest))
            wall[size].append(spent)
            cpu[size].append(spent_cpu)
    points = [point_of(size, wall[size], cpu[size], peaks[size]) for size in sizes]
    return Curve(name, points, *growth_of(sizes, wall, cpu, peaks))


def peak_mib_of(call: Timed) -> float:
    """The peak of Python allocations during one call, in MiB (tracemalloc's count)."""
    gc.collect()
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def point_of(size: int, wall: list[float], cpu: list[float], peak: float) -> Point:
    median = statistics.median(wall)
    return Point(
        size,
        len(wall),
        median,
        min(wall),
        max(wall),
        median * 1e3 / size,
        statistics.median(cpu),
        peak,
    )


def growth_of(
    sizes: Sequence[int],
    wall: dict[int, list[float]],
    cpu: dict[int, list[float]],
    peaks: dict[int, float],
) -> tuple[Growth | None, tuple[int, int] | None]:
    """The largest size against the one a tenth of it, if both were measured: the ratio of
    median times, and the range of the rounds' own ratios."""
    largest = max(sizes)
    smaller = largest // 10
    if smaller not in wall:
        return None, None
    per_round = [big / small for big, small in zip(wall[largest], wall[smaller], strict=True)]
    cpu_ratio = statistics.median(cpu[largest]) / max(statistics.median(cpu[smaller]), 1e-9)
    ratio = statistics.median(wall[largest]) / statistics.median(wall[smaller])
    peak_ratio = peaks[largest] / max(peaks[smaller], 1e-9)
    growth = Growth(ratio, min(per_round), max(per_round), cpu_ratio, peak_ratio)
    return growth, (smaller, largest)


# --- driver ----------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Time how hookproof's costs grow with size.")
    parser.add_argument(
        "--quick", action="store_true", help=f"sizes {QUICK_SIZES}, {QUICK_ROUNDS} rounds"
    )
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    parser.add_argument("--sizes", help="comma-separated sizes for every curve")
    parser.add_argument(
        "--only", help=f"comma-separated curves to run, among {', '.join(SCENARIOS)}"
    )
    parser.add_argument("--rounds", type=int, help=f"timed rounds (default: {ROUNDS})")
    return parser.parse_args(argv)


def chosen(option: str | None, default: Sequence[Any], kind: Callable[[str], Any]) -> list[Any]:
    return [kind(item) for item in option.split(",")] if option else list(default)


def available(name: str) -> bool:
    needs = SCENARIOS[name].needs
    if needs is None:
        return True
    try:
        __import__(needs)
    except ImportError:
        print(f"{name}: skipped, {needs} is not installed", file=sys.stderr)
        return False
    return True


def report(curves: Sequence[Curve]) -> None:
    for curve in curves:
        print(f"{curve.name}:")
        for point in curve.points:
            print(
                f"  N={point.size:>6}  median {point.median_ms:>10.2f} ms "
                f"[{point.min_ms:.2f}–{point.max_ms:.2f}]  {point.per_item_us:>8.2f} µs/item  "
                f"cpu {point.cpu_median_ms:>10.2f} ms  peak {point.peak_mib:>8.1f} MiB  "
                f"(rounds={point.rounds})"
            )
        if curve.growth is not None and curve.growth_between is not None:
            small, large = curve.growth_between
            growth = curve.growth
            verdict = "ok" if growth.ratio <= GOAL_GROWTH else f"over the goal of {GOAL_GROWTH:g}"
            print(
                f"  growth time({large})/time({small}) = {growth.ratio:.1f} "
                f"[rounds {growth.round_min:.1f}–{growth.round_max:.1f}], "
                f"cpu {growth.cpu_ratio:.1f}, peak memory {growth.peak_ratio:.1f} "
                f"(linear ≈ 10, quadratic ≈ 100): {verdict}"
            )


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    names = chosen(args.only, list(SCENARIOS), str)
    unknown = [name for name in names if name not in SCENARIOS]
    if unknown:
        raise SystemExit(f"unknown curve(s) {unknown}; known: {list(SCENARIOS)}")
    rounds = args.rounds or (QUICK_ROUNDS if args.quick else ROUNDS)
    curves = []
    for name in filter(available, names):
        default = QUICK_SIZES if args.quick else SCENARIOS[name].sizes
        curves.append(measure_curve(name, chosen(args.sizes, default, int), rounds))
    if args.json:
        print(json.dumps([asdict(curve) for curve in curves], indent=2))
    else:
        report(curves)


if __name__ == "__main__":
    main()
