"""Hook order, counts and handler calls on real runs (LangChain v1 semantics)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.runtime import AgentMiddleware, AssistantMessage, ModelResponse, create_agent
from tests.helpers import Everything, hook_labels, lookup


def _run(middleware: list[Any], turns: list[Any] | None = None) -> Any:
    script = turns if turns is not None else [call("lookup", {"query": "x"}), "done"]
    agent = create_agent(ScriptedModel(script), [lookup], middleware=middleware)
    return agent.invoke({"messages": [("user", "hi")]})


def test_order_table_for_two_middleware_and_one_tool_call() -> None:
    result = _run([Everything("A"), Everything("B")])
    one_model_turn = [
        "A.before_model:enter",
        "A.before_model:exit",
        "B.before_model:enter",
        "B.before_model:exit",
        "A.wrap_model_call:enter",
        "B.wrap_model_call:enter",
        "model:enter",
        "model:exit",
        "B.wrap_model_call:exit",
        "A.wrap_model_call:exit",
        "B.after_model:enter",
        "B.after_model:exit",
        "A.after_model:enter",
        "A.after_model:exit",
    ]
    assert hook_labels(result) == [
        "A.before_agent:enter",
        "A.before_agent:exit",
        "B.before_agent:enter",
        "B.before_agent:exit",
        *one_model_turn,
        "A.wrap_tool_call:enter",
        "B.wrap_tool_call:enter",
        "tool:enter",
        "tool:exit",
        "B.wrap_tool_call:exit",
        "A.wrap_tool_call:exit",
        *one_model_turn,
        "B.after_agent:enter",
        "B.after_agent:exit",
        "A.after_agent:enter",
        "A.after_agent:exit",
    ]
    assert result.text == "done"


def test_hook_counts_for_one_tool_call() -> None:
    counts = _run([Everything("A")]).trace.hook_counts()
    assert counts == {
        ("A", "before_agent"): 1,
        ("A", "before_model"): 2,
        ("A", "wrap_model_call"): 2,
        ("A", "after_model"): 2,
        ("A", "wrap_tool_call"): 1,
        ("A", "after_agent"): 1,
    }


def test_parallel_tool_calls_each_pass_through_the_tool_onion() -> None:
    turns = [[call("lookup", {"query": "a"}), call("lookup", {"query": "b"})], "done"]
    result = _run([Everything("A")], turns)
    tool_events = [e for e in result.trace if e.kind in ("tool", "layer") and "tool" in e.hook]
    assert [e.label() for e in tool_events] == [
        "A.wrap_tool_call:enter",
        "tool:enter",
        "tool:exit",
        "A.wrap_tool_call:exit",
    ] * 2
    assert [e.data["call_id"] for e in result.trace.tool_calls] == ["call_0", "call_1"]
    answers = [m.text for m in result.messages if m.role == "tool"]
    assert answers == ["found:a", "found:b"]


class ShortCircuit(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return ModelResponse(result=(AssistantMessage("cached"),))


class Retry(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        try:
            return handler(request)
        except ConnectionError:
            return handler(request)


@pytest.mark.parametrize(
    ("middleware", "turns", "model_calls", "answer"),
    [
        pytest.param(ShortCircuit(), [], 0, "cached", id="zero-calls"),
        pytest.param(Retry(), ["done"], 1, "done", id="one-call"),
        pytest.param(Retry(), [ConnectionError("503"), "done"], 2, "done", id="two-calls"),
    ],
)
def test_handler_called_zero_one_or_two_times(
    middleware: Any, turns: list[Any], model_calls: int, answer: str
) -> None:
    model = RecordingModel(ScriptedModel(turns))
    result = create_agent(model, middleware=[middleware]).invoke({"messages": [("user", "hi")]})
    assert result.text == answer
    assert len(result.trace.model_calls) == model_calls
    assert len(model.requests) == model_calls
    if model_calls == 2:
        assert [e.label() for e in result.trace.select("model")] == [
            "model:enter",
            "model:error",
            "model:enter",
            "model:exit",
        ]


def test_async_trace_equals_sync_trace() -> None:
    def build() -> Any:
        script = [call("lookup", {"query": "x"}), "done"]
        return create_agent(
            ScriptedModel(script), [lookup], middleware=[Everything("A"), Everything("B")]
        )

    sync = build().invoke({"messages": [("user", "hi")]})
    async_ = asyncio.run(build().ainvoke({"messages": [("user", "hi")]}))
    assert async_.trace == sync.trace
    assert async_.messages == sync.messages


class SyncOnly(AgentMiddleware):
    """Only sync hooks: they must still run under ainvoke, around async inner layers."""

    def __init__(self, name: str) -> None:
        self.name = name

    def before_model(self, state: Any, runtime: Any) -> None:
        return None

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request)

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        return handler(request)


class SlowAsyncModel:
    """A model that really suspends, so sync layers above it must not block the loop."""

    name = "slow"

    def __init__(self) -> None:
        self.inner = ScriptedModel([call("lookup", {"query": "x"}), "done"])

    def invoke(self, request: Any) -> Any:
        raise AssertionError("ainvoke must be used under agent.ainvoke")

    async def ainvoke(self, request: Any) -> Any:
        await asyncio.sleep(0)
        return self.inner.invoke(request)


def test_sync_hooks_work_under_ainvoke_with_a_suspending_model() -> None:
    stack = [SyncOnly("S1"), Everything("A"), SyncOnly("S2")]
    agent = create_agent(SlowAsyncModel(), [lookup], middleware=stack)
    result = asyncio.run(agent.ainvoke({"messages": [("user", "hi")]}))
    assert result.text == "done"
    assert result.trace.count("wrap_model_call", "S2") == 2
    wraps = [e.label() for e in result.trace.select("layer") if e.hook == "wrap_model_call"][:6]
    assert wraps == [
        "S1.wrap_model_call:enter",
        "A.wrap_model_call:enter",
        "S2.wrap_model_call:enter",
        "S2.wrap_model_call:exit",
        "A.wrap_model_call:exit",
        "S1.wrap_model_call:exit",
    ]


def _is_onion(labels: list[str], names: list[str], hook: str) -> bool:
    expected = [f"{n}.{hook}:enter" for n in names] + [f"{n}.{hook}:exit" for n in reversed(names)]
    observed = [label for label in labels if f".{hook}:" in label]
    return observed == expected * (len(observed) // max(len(expected), 1))


@given(
    kinds=st.lists(st.sampled_from(["model", "tool", "both", "node"]), max_size=8),
    use_async=st.booleans(),
)
def test_wrap_layers_nest_as_an_onion_for_any_stack(kinds: list[str], use_async: bool) -> None:
    stack: list[Any] = []
    for index, kind in enumerate(kinds):
        middleware = Everything(f"m{index}") if kind == "both" else SyncOnly(f"m{index}")
        if kind == "node":
            middleware = Everything(f"m{index}")
        stack.append(middleware)
    agent = create_agent(
        ScriptedModel([call("lookup", {"query": "x"}), "done"]), [lookup], middleware=stack
    )
    request = {"messages": [("user", "hi")]}
    result = asyncio.run(agent.ainvoke(request)) if use_async else agent.invoke(request)
    labels = hook_labels(result)
    names = [m.name for m in stack]
    assert _is_onion(labels, names, "wrap_model_call")
    assert _is_onion(labels, names, "wrap_tool_call")
    before = [label for label in labels if ".before_model:enter" in label]
    after = [label for label in labels if ".after_model:enter" in label]
    assert before == [f"{n}.before_model:enter" for n in names] * 2
    assert (
        after
        == [
            f"{n}.after_model:enter"
            for n in reversed(names)
            if n.startswith("m") and isinstance(stack[names.index(n)], Everything)
        ]
        * 2
    )
