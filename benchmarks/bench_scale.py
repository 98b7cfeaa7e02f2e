"""How each cost grows with the size of its input: one curve per cost, in one process.

Curves (N is the size):

- ``invoke_id_history``: ``agent.invoke`` with a history of N messages that all carry ids;
  the model answers at once, so the time is the messages reducer plus the engine's
  per-message work.
- ``invoke_tool_turns``: one ``agent.invoke`` in which a scripted model calls a tool N times
  before it answers (2N model/tool steps; the history grows to 2N + 2 messages).
- ``diff_messages``: ``snapshot.diff`` of two views of N-message histories (user and
  assistant messages without ids, so ``<user>``/``<assistant>`` lines repeat N/2 times
  each), the new one with 1% of the messages edited, one inserted and one removed.
- ``diff_tools``: ``snapshot.diff`` of two views of N tools, the new one with 1% of the
  tools removed, 1% added and 1% with a changed description.

For each size the median of several timed calls is printed, with the time per item, and for
each curve the growth ratio time(largest) / time(largest / 10): about 10 means linear,
about 100 quadratic. Usage::

    python benchmarks/bench_scale.py [--quick] [--json] [--sizes 100,1000,10000]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"
if SRC.is_dir() and str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))  # benchmark the working tree even when not pip-installed

SIZES = (100, 1_000, 2_000, 5_000, 10_000)
QUICK_SIZES = (10, 100, 1_000)

Timed = Callable[[], object]


@dataclass(frozen=True)
class Point:
    """One size on a curve: the median wall time of ``runs`` calls, and their median CPU time
    (steadier than wall time on a machine other processes keep busy)."""

    size: int
    runs: int
    median_ms: float
    per_item_us: float
    cpu_median_ms: float


@dataclass(frozen=True)
class Curve:
    name: str
    points: list[Point]
    growth: float | None  # time(largest) / time(largest / 10), when both were measured
    growth_between: tuple[int, int] | None
    cpu_growth: float | None


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


SCENARIOS: dict[str, Callable[[int], Timed]] = {
    "invoke_id_history": invoke_id_history,
    "invoke_tool_turns": invoke_tool_turns,
    "diff_messages": diff_messages,
    "diff_tools": diff_tools,
}


# --- timing ----------------------------------------------------------------------------------


def runs_for(size: int, quick: bool, runs: int | None) -> int:
    if runs is not None:
        return runs
    if quick:
        return 3
    return 7 if size <= 2_000 else 3


def time_point(scenario: Callable[[int], Timed], size: int, runs: int) -> Point:
    """Build the scenario, call it once untimed (warm-up and check), then time ``runs`` calls."""
    call = scenario(size)
    call()
    gc.collect()
    clock, cpu_clock = time.perf_counter_ns, time.process_time_ns
    samples, cpu_samples = [], []
    for _ in range(runs):
        start, cpu_start = clock(), cpu_clock()
        call()
        samples.append(clock() - start)
        cpu_samples.append(cpu_clock() - cpu_start)
    median_ns = statistics.median(samples)
    cpu_ms = statistics.median(cpu_samples) / 1e6
    return Point(size, runs, median_ns / 1e6, median_ns / 1e3 / size, cpu_ms)


def growth_of(points: Sequence[Point]) -> tuple[Point, Point] | None:
    """The largest size and the one a tenth of it, if both were measured."""
    by_size = {point.size: point for point in points}
    largest = max(by_size)
    smaller = by_size.get(largest // 10)
    if smaller is None or not smaller.median_ms or not smaller.cpu_median_ms:
        return None
    return smaller, by_size[largest]


def measure(
    names: Sequence[str], sizes: Sequence[int], quick: bool, runs: int | None = None
) -> list[Curve]:
    curves = []
    for name in names:
        points = [time_point(SCENARIOS[name], size, runs_for(size, quick, runs)) for size in sizes]
        pair = growth_of(points)
        if pair is None:
            curves.append(Curve(name, points, None, None, None))
            continue
        small, large = pair
        growth = large.median_ms / small.median_ms
        cpu_growth = large.cpu_median_ms / small.cpu_median_ms
        curves.append(Curve(name, points, growth, (small.size, large.size), cpu_growth))
    return curves


# --- driver ----------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Time how hookproof's costs grow with size.")
    parser.add_argument("--quick", action="store_true", help=f"sizes {QUICK_SIZES}, 3 runs")
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    parser.add_argument("--sizes", help="comma-separated sizes (default: %(default)s)")
    parser.add_argument(
        "--only", help=f"comma-separated curves to run, among {', '.join(SCENARIOS)}"
    )
    parser.add_argument("--runs", type=int, help="timed calls per size (default: 7, 3 above 2k)")
    return parser.parse_args(argv)


def chosen(option: str | None, default: Sequence[Any], kind: Callable[[str], Any]) -> list[Any]:
    return [kind(item) for item in option.split(",")] if option else list(default)


def report(curves: Sequence[Curve]) -> None:
    for curve in curves:
        print(f"{curve.name}:")
        for point in curve.points:
            print(
                f"  N={point.size:>6}  median {point.median_ms:>10.2f} ms  "
                f"{point.per_item_us:>9.2f} µs/item  cpu {point.cpu_median_ms:>10.2f} ms  "
                f"(runs={point.runs})"
            )
        if curve.growth is not None and curve.growth_between is not None:
            small, large = curve.growth_between
            print(
                f"  growth time({large})/time({small}) = {curve.growth:.1f}, "
                f"cpu {curve.cpu_growth:.1f} (linear ≈ 10, quadratic ≈ 100)"
            )


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    sizes = chosen(args.sizes, QUICK_SIZES if args.quick else SIZES, int)
    names = chosen(args.only, list(SCENARIOS), str)
    unknown = [name for name in names if name not in SCENARIOS]
    if unknown:
        raise SystemExit(f"unknown curve(s) {unknown}; known: {list(SCENARIOS)}")
    curves = measure(names, sizes, args.quick, args.runs)
    if args.json:
        print(json.dumps([asdict(curve) for curve in curves], indent=2))
    else:
        report(curves)


if __name__ == "__main__":
    main()
