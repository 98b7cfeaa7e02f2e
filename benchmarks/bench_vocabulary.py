"""Microseconds per construction of the vocabulary values the engine builds on every invoke.

For each type two ways are timed where both exist: the public, validating way a user takes
(``AssistantMessage("done")``, ``ModelRequest.create(...)``, ``request.override(...)``) and the
internal way the engine and the scripted model take for values that are already valid and
frozen (``construct``, ``text_message``, the dataclass constructor). Each case runs
``--number`` constructions per sample; the median over ``--repeat`` samples is reported
(the minimum beside it shows the noise floor). Samples are timed in CPU time of this process
(``time.process_time_ns``), which a busy machine inflates far less than wall time; pass
``--wall`` for wall time. Usage::

    python benchmarks/bench_vocabulary.py [--number N] [--repeat R] [--wall] [--json]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"
if SRC.is_dir() and str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))  # benchmark the working tree even when not pip-installed

from hookproof._support.frozen import FrozenDict, FrozenList, freeze  # noqa: E402
from hookproof.context import Runtime, ToolRuntime  # noqa: E402
from hookproof.messages import (  # noqa: E402
    AssistantMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
    construct,
    text_message,
)
from hookproof.requests import FinalRequest, ModelRequest, ToolCallRequest  # noqa: E402
from hookproof.tools import tool  # noqa: E402


class _Model:
    name = "bench-model"


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"found:{query}"


ARGS = FrozenDict({"query": "x"})
CALL = construct(ToolCall, name="lookup", args=ARGS, id="call_0")
CALLS = FrozenList((CALL,))
HISTORY = FrozenList(
    (
        text_message(UserMessage, "hi"),
        text_message(AssistantMessage, "", tool_calls=CALLS),
        text_message(ToolMessage, "found:x", tool_call_id="call_0", name="lookup"),
    )
)
SYSTEM = text_message(SystemMessage, "be brief")
TOOLS = FrozenList((lookup,))
STATE = FrozenDict({"messages": HISTORY})
RUNTIME: Runtime[Any] = Runtime()
REQUEST = ModelRequest(
    model=_Model(),
    messages=HISTORY,
    system_message=SYSTEM,
    tools=TOOLS,
    state=STATE,
    runtime=RUNTIME,
)
TOOL_RUNTIME: ToolRuntime[Any] = ToolRuntime(state=STATE, tool_call_id="call_0", tool_call=CALL)
TOOL_REQUEST = ToolCallRequest(tool_call=CALL, tool=lookup, state=STATE, runtime=TOOL_RUNTIME)
PLAIN_HISTORY = [("user", "hi"), {"role": "assistant", "content": "ok"}]


def _cases() -> dict[str, dict[str, Callable[[], object]]]:
    return {
        "ToolCall": {
            "public": lambda: ToolCall(name="lookup", args={"query": "x"}, id="call_0"),
            "internal": lambda: construct(ToolCall, name="lookup", args=ARGS, id="call_0"),
        },
        "AssistantMessage (text)": {
            "public": lambda: AssistantMessage("done"),
            "internal": lambda: text_message(AssistantMessage, "done"),
        },
        "AssistantMessage (tool call)": {
            "public": lambda: AssistantMessage(
                tool_calls=[{"name": "lookup", "args": {"query": "x"}, "id": "call_0"}]
            ),
            "internal": lambda: text_message(AssistantMessage, "", tool_calls=CALLS),
        },
        "ToolMessage": {
            "public": lambda: ToolMessage("found:x", tool_call_id="call_0", name="lookup"),
            "internal": lambda: text_message(
                ToolMessage, "found:x", tool_call_id="call_0", name="lookup"
            ),
        },
        "ModelRequest": {
            "public": lambda: ModelRequest.create(
                model=REQUEST.model,
                messages=PLAIN_HISTORY,
                system_message="be brief",
                tools=[lookup],
                state={"messages": HISTORY},
            ),
            "override": lambda: REQUEST.override(system_message=SYSTEM),
            "internal": lambda: ModelRequest(
                model=REQUEST.model,
                messages=HISTORY,
                system_message=SYSTEM,
                tools=TOOLS,
                state=STATE,
                runtime=RUNTIME,
            ),
        },
        "FinalRequest": {
            "public": lambda: FinalRequest(
                model="bench-model",
                system_message=SYSTEM,
                messages=HISTORY,
                tools=(lookup.schema,),
            ),
            "internal": lambda: FinalRequest.from_request(REQUEST),
        },
        "ToolCallRequest": {
            "override": lambda: TOOL_REQUEST.override(state={"messages": HISTORY}),
            "internal": lambda: ToolCallRequest(
                tool_call=CALL, tool=lookup, state=STATE, runtime=TOOL_RUNTIME
            ),
        },
        "ToolRuntime": {
            "internal": lambda: ToolRuntime(
                context=None, state=STATE, tool_call_id="call_0", tool_call=CALL
            ),
        },
        "FrozenDict": {
            "public": lambda: freeze({"query": "x", "limit": 3}),
            "internal": lambda: FrozenDict({"query": "x", "limit": 3}),
        },
        "FrozenList": {
            "public": lambda: freeze([1, 2, 3]),
            "internal": lambda: FrozenList((CALL,)),
        },
    }


def _time(
    build: Callable[[], object], number: int, repeat: int, clock: Callable[[], int]
) -> tuple[float, float]:
    build()
    samples = []
    gc.collect()
    for _ in range(repeat):
        started = clock()
        for _ in range(number):
            build()
        samples.append((clock() - started) / number / 1000)
    return statistics.median(samples), min(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--number", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--wall", action="store_true", help="time in wall clock, not CPU time")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    clock = time.perf_counter_ns if options.wall else time.process_time_ns
    results = {
        name: {
            way: _time(build, options.number, options.repeat, clock) for way, build in ways.items()
        }
        for name, ways in _cases().items()
    }
    if options.json:
        print(
            json.dumps(
                {
                    name: {way: med for way, (med, _) in ways.items()}
                    for name, ways in results.items()
                },
                indent=2,
            )
        )
        return
    what = "wall" if options.wall else "CPU"
    print(f"µs ({what}) per construction, median of {options.repeat} x {options.number} (min)")
    for name, ways in results.items():
        for way, (median, fastest) in ways.items():
            print(f"  {name:30} {way:9} {median:8.3f}  ({fastest:.3f})")


if __name__ == "__main__":
    main()
