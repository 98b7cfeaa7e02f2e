"""Overhead of hookproof's LangChain models on a create_agent invoke.

Same scenario three times (one tool call, then an answer): a minimal hand-written
BaseChatModel with bind_tools, hookproof's ScriptedChatModel, and RecordingChatModel around
it. Reports medians and the overhead against the hand-written model (target: at most 10%).

    python benchmarks/bench_adapter.py [--runs N]
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

from langchain.agents import create_agent  # noqa: E402
from langchain_core.language_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatResult  # noqa: E402
from langchain_core.tools import tool  # noqa: E402

from hookproof.adapters.langchain import RecordingChatModel, ScriptedChatModel  # noqa: E402
from hookproof.models import call  # noqa: E402

INPUT = {"messages": [("user", "hi")]}


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"found:{query}"


class HandWritten(BaseChatModel):
    """The least a test model must do for create_agent: answer and accept bind_tools."""

    @property
    def _llm_type(self) -> str:
        return "hand-written"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self.bind(tools=tools, **kwargs)

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        answered = any(m.type == "tool" for m in messages)
        calls = [] if answered else [{"name": "lookup", "args": {"query": "x"}, "id": "call_0"}]
        message = AIMessage(content="done" if answered else "", tool_calls=calls)
        return ChatResult(generations=[ChatGeneration(message=message)])


def _script(request: Any) -> Any:
    answered = any(m.role == "tool" for m in request.messages)
    return "done" if answered else call("lookup", {"query": "x"}, id="call_0")


def _turns(runs: int) -> list[Any]:
    """A list script long enough for every invoke (the usual way scripts are written)."""
    return [call("lookup", {"query": "x"}, id="call_0"), "done"] * (runs + 20)


def _timed(agent: Any) -> float:
    started = time.perf_counter_ns()
    agent.invoke(INPUT)
    return (time.perf_counter_ns() - started) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=300)
    runs = parser.parse_args().runs
    models = {
        "hand-written BaseChatModel": HandWritten(),
        "ScriptedChatModel": ScriptedChatModel(script=_turns(runs)),
        "RecordingChatModel(Scripted)": RecordingChatModel(
            inner=ScriptedChatModel(script=_turns(runs))
        ),
        "ScriptedChatModel(function)": ScriptedChatModel(script=_script),
    }
    agents = {name: create_agent(model, [lookup]) for name, model in models.items()}
    samples: dict[str, list[float]] = {name: [] for name in agents}
    for round_ in range(runs + 10):  # interleaved, so machine drift hits every model alike
        for name, agent in agents.items():
            elapsed = _timed(agent)
            if round_ >= 10:
                samples[name].append(elapsed)
    base = statistics.median(samples["hand-written BaseChatModel"])
    for name, values in samples.items():
        median = statistics.median(values)
        print(f"{name:30s} median {median:8.1f} µs   overhead {100 * (median / base - 1):+5.1f}%")


if __name__ == "__main__":
    main()
