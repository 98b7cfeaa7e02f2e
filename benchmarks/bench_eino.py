"""Time bench_runtime's scenario on the Eino dialect, beside the runtime and LangChain v1.

The scenario is bench_runtime's (one tool call, then "done"), with three no-op handlers in
the Eino dialect: one overriding only ``wrap_model``, one only
``before_model_rewrite_state``, one only ``wrap_invokable_tool_call``. Only
``agent.run([("user", "hi")])`` is timed. The other two sides come from bench_runtime, in the
same process, so the ratios compare like with like. Usage::

    python benchmarks/bench_eino.py [--quick] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_runtime as base


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
    run = agent.run([("user", "hi")])
    if run.error is not None:
        raise run.error
    return str(run.text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations (smoke run)")
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    args = parser.parse_args()
    count, lc_count = (200, 30) if args.quick else (2000, 200)

    eino, runtime = build_eino(), base.build_hookproof()
    assert eino_answer(eino) == "done" and base.hookproof_answer(runtime) == "done"
    timings = {
        "eino": base.time_calls("eino run", lambda: eino_answer(eino), count // 10, count),
        "runtime": base.time_calls(
            "runtime invoke", lambda: base.hookproof_answer(runtime), count // 10, count
        ),
    }
    if base.langchain_available():
        chain = base.build_langchain()
        assert base.langchain_answer(chain) == "done"
        timings["langchain"] = base.time_calls(
            "langchain invoke", lambda: base.langchain_answer(chain), lc_count // 10, lc_count
        )
    ratios = {
        f"{name}/eino": timing.median_us / timings["eino"].median_us
        for name, timing in timings.items()
        if name != "eino"
    }
    if args.json:
        print(json.dumps({"timings": {k: asdict(v) for k, v in timings.items()}, "ratios": ratios}))
        return
    for timing in timings.values():
        print(
            f"{timing.name:<18} median {timing.median_us:9.1f} µs  p90 {timing.p90_us:9.1f} µs"
            f"  ({timing.iterations} runs)"
        )
    for name, ratio in ratios.items():
        print(f"ratio {name:<16} {ratio:6.2f}x")


if __name__ == "__main__":
    main()
