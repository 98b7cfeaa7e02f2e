"""How close bench_runtime's scenario can get to the bare loop while user code still receives
hookproof's public values: the floor under issue #31's runtime goals.

The floor does only what no engine can skip in that scenario: it builds every value the
scenario hands to user code (the state and runtime ``before_model`` reads, the ModelRequest
``wrap_model_call`` reads, the FinalRequest the scripted model reads, the ModelResponse, the
ToolCallRequest and ToolRuntime ``wrap_tool_call`` reads, every message), with the cheapest
constructors hookproof has, and calls the same middleware, model and tool. It keeps no trace,
no provenance, no checks, no state reducers, no recording, no interrupts.

Before anything is timed, the floor must answer "done" and hand each hook, the model and the
tool values of exactly the classes the engine hands them (recorded on both sides); otherwise
the script stops with the difference. Reported, as CPU time per round (median and range of the
rounds' own ratios): floor/bare loop, engine/floor, engine/bare loop, and what the goals leave
the engine over the floor. ``--instructions N`` counts instructions per call with callgrind
(N calls minus none), which the machine's load does not move. Usage::

    python benchmarks/bench_floor.py [--quick] [--instructions N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_runtime as scenario  # noqa: E402  (also puts this tree's src first on sys.path)

from hookproof._support.frozen import FrozenDict, FrozenList  # noqa: E402
from hookproof._support.frozen_model import construct_text, construct_whole  # noqa: E402
from hookproof.context import Runtime, ToolRuntime  # noqa: E402
from hookproof.messages import TextBlock, ToolMessage, coerce_message  # noqa: E402
from hookproof.requests import FinalRequest, ModelRequest, ModelResponse, ToolCallRequest  # noqa: E402

Seen = list[tuple[str, tuple[str, ...]]]


def _kinds(*values: Any) -> tuple[str, ...]:
    return tuple(type(value).__name__ for value in values)


class Floor:
    """bench_runtime's scenario with nothing but the values user code receives."""

    def __init__(self, middleware: tuple[Any, list[Any], list[Any]] | None = None) -> None:
        parts = scenario.hookproof_parts() if middleware is None else middleware
        self.model, (self.tool,), middleware_list = parts
        self.wrap_model, self.before, self.wrap_tool = middleware_list
        self.tools = FrozenList((self.tool,))
        bare_request = ModelRequest(model=self.model, tools=self.tools)
        self.schemas = FinalRequest.from_request(bare_request).tools

    def __call__(self) -> str:
        messages = [coerce_message(("user", "hi"))]
        runtime: Runtime[Any] = Runtime(context=None, agent_name=None)
        while True:
            state = FrozenDict({"messages": FrozenList(messages)})
            self.before.before_model(state, runtime)
            request = ModelRequest(
                model=self.model, messages=state["messages"], tools=self.tools, state=state,
                runtime=runtime,
            )  # fmt: skip
            reply = self.wrap_model.wrap_model_call(request, self._call_model).result[0]
            messages.append(reply)
            if not reply.tool_calls:
                return str(reply.text)
            for tool_call in reply.tool_calls:
                messages.append(self._call_tool(tool_call, state))

    def _call_model(self, request: ModelRequest[Any]) -> ModelResponse[Any]:
        final = construct_whole(FinalRequest, {
            "model": "scripted", "system_message": None, "messages": request.messages,
            "tools": self.schemas, "tool_choice": None, "response_format": None,
            "model_settings": FrozenDict(),
        })  # fmt: skip
        return ModelResponse(result=[self.model.invoke(final)])

    def _call_tool(self, tool_call: Any, state: FrozenDict) -> Any:
        call_id = tool_call.id
        runtime = ToolRuntime(context=None, state=state, tool_call_id=call_id, tool_call=tool_call)
        request = ToolCallRequest(tool_call=tool_call, tool=self.tool, state=state, runtime=runtime)
        return self.wrap_tool.wrap_tool_call(request, self._run_tool)

    def _run_tool(self, request: ToolCallRequest) -> Any:
        text = self.tool.func(**request.tool_call.args)
        values = {"tool_call_id": request.tool_call.id, "name": self.tool.name}
        return construct_text(ToolMessage, TextBlock, text, values)


def recording_parts(seen: Seen) -> tuple[Any, list[Any], list[Any]]:
    """The scenario's parts, with each middleware noting the classes of what it receives
    and of what its handler gives back."""
    from hookproof.runtime import AgentMiddleware

    model, tools, (wrap_model, before, wrap_tool) = scenario.hookproof_parts()

    class NotingWrapModel(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            seen.append(("wrap_model_call", _kinds(request, request.runtime, *request.messages)))
            response = wrap_model.wrap_model_call(request, handler)
            seen.append(("model response", _kinds(response, *response.result)))
            return response

    class NotingBefore(AgentMiddleware):
        def before_model(self, state: Any, runtime: Any) -> Any:
            seen.append(("before_model", _kinds(state, runtime, *state["messages"])))
            return before.before_model(state, runtime)

    class NotingWrapTool(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            kinds = _kinds(request, request.tool_call, request.runtime, request.tool)
            seen.append(("wrap_tool_call", kinds))
            result = wrap_tool.wrap_tool_call(request, handler)
            seen.append(("tool result", _kinds(result)))
            return result

    return model, tools, [NotingWrapModel(), NotingBefore(), NotingWrapTool()]


def check_floor_hands_what_the_engine_hands() -> None:
    """Stop, saying what differs, unless the floor answers "done" and every hook receives
    values of the classes the engine gives it."""
    from hookproof.runtime import create_agent

    on_engine: Seen = []
    model, tools, middleware = recording_parts(on_engine)
    answer = create_agent(model, tools, middleware=middleware).invoke(scenario.INPUT).text
    on_floor: Seen = []
    floor = Floor(middleware=recording_parts(on_floor))
    floor_answer = floor()
    if (answer, on_engine) != (floor_answer, on_floor):
        raise SystemExit(
            "bench_floor: the floor no longer hands user code what the engine does, so its "
            f"figures would not be a floor.\n engine: {answer!r} {on_engine}\n floor:  "
            f"{floor_answer!r} {on_floor}\nUpdate Floor to build what the engine builds."
        )


def cpu_ratios(quick: bool) -> dict[str, Any]:
    agent = scenario.build_hookproof()
    floor = Floor()
    calls: dict[str, tuple[Callable[[], object], int]] = {
        "engine": (lambda: agent.invoke(scenario.INPUT), 100),
        "floor": (floor, 100),
        "bare loop": (scenario.bare_loop, 1000),
    }
    found = scenario.cpu_rounds(calls, rounds=5 if quick else 21)
    return {
        "us_per_call": {name: statistics.median(values) for name, values in found.items()},
        "floor/bare loop": scenario.round_ratios(found["floor"], found["bare loop"]),
        "engine/floor": scenario.round_ratios(found["engine"], found["floor"]),
        "engine/bare loop": scenario.round_ratios(found["engine"], found["bare loop"]),
    }


CALLS = {
    "engine": "agent = bench_runtime.build_hookproof()\nfor _ in range(N): agent.invoke(INPUT)",
    "floor": "floor = bench_floor.Floor()\nfor _ in range(N): floor()",
    "bare loop": "for _ in range(N): bench_runtime.bare_loop()",
}


def instructions_per_call(name: str, count: int) -> float:
    """callgrind's instruction count for ``count`` calls minus the same script with none."""
    totals = [_callgrind(CALLS[name], calls) for calls in (0, count)]
    return (totals[1] - totals[0]) / count


def _callgrind(body: str, calls: int) -> int:
    script = (
        f"import sys\nsys.path.insert(0, {str(HERE)!r})\nimport bench_runtime, bench_floor\n"
        f"INPUT = bench_runtime.INPUT\nN = {calls}\n{body}\n"
    )
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "callgrind.out"
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable]
        subprocess.run([*command, "-c", script], check=True, capture_output=True)
        summary = next(line for line in out.read_text().splitlines() if line.startswith("summary:"))
    return int(summary.split()[1])


def print_ratio(name: str, found: dict[str, float]) -> None:
    print(f"  {name:<18} {found['median']:6.1f}x [{found['min']:.1f}-{found['max']:.1f}]")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="5 rounds instead of 21")
    parser.add_argument("--instructions", type=int, metavar="N", help="callgrind, N calls")
    args = parser.parse_args(argv)
    check_floor_hands_what_the_engine_hands()
    cpu = cpu_ratios(args.quick)
    per_call = ", ".join(f"{name} {us:.1f} µs" for name, us in cpu["us_per_call"].items())
    print("bench_runtime's scenario, CPU time per round (median [range] of round ratios):")
    print(f"  per call (median): {per_call}")
    for name in ("floor/bare loop", "engine/floor", "engine/bare loop"):
        print_ratio(name, cpu[name])
    floor_over_bare = cpu["floor/bare loop"]["median"]
    room = scenario.GOAL_OVER_BARE_LOOP / floor_over_bare
    print(f"  'engine <= {scenario.GOAL_OVER_BARE_LOOP:.0f}x the bare loop' leaves the engine "
          f"{room:.2f}x the floor")  # fmt: skip
    if args.instructions:
        counts = {name: instructions_per_call(name, args.instructions) for name in CALLS}
        print(f"instructions per call (callgrind, {args.instructions} calls minus none):")
        for name, count in counts.items():
            print(f"  {name:<18} {count:12,.0f}")
        print(f"  floor/bare loop    {counts['floor'] / counts['bare loop']:6.2f}x")
        print(f"  engine/floor       {counts['engine'] / counts['floor']:6.2f}x")


if __name__ == "__main__":
    main()
