"""Hook order, counts and handler calls on real runs (LangChain v1 semantics)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.runtime import AgentMiddleware, AssistantMessage, ModelResponse, create_agent
from tests.helpers import Everything, hook_labels, lookup, passing_through


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


# Only sync hooks: they must still run under ainvoke, around async inner layers.
SyncOnly = passing_through("SyncOnly", "before_model", "wrap_model_call", "wrap_tool_call")


class SlowAsyncModel:
    """A model that really suspends, so sync layers above it must not block the loop."""

    name = "slow"
    hookproof_offline = True

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


NodeOnly = passing_through("NodeOnly", "before_model", "after_model")
AsyncWrapOnly = passing_through("AsyncWrapOnly", "awrap_model_call", "awrap_tool_call")

KINDS = {"everything": Everything, "sync": SyncOnly, "node": NodeOnly, "async": AsyncWrapOnly}


def _has(middleware: Any, hook: str) -> bool:
    return hasattr(middleware, hook) or hasattr(middleware, f"a{hook}")


def _expected_onion(stack: list[Any], hook: str, calls: int) -> list[str]:
    names = [m.name for m in stack if _has(m, hook)]
    one = [f"{n}.{hook}:enter" for n in names] + [f"{n}.{hook}:exit" for n in reversed(names)]
    return one * calls


@given(
    kinds=st.lists(st.sampled_from(sorted(KINDS)), max_size=8),
    use_async=st.booleans(),
    tool_calls=st.integers(min_value=0, max_value=3),
)
def test_any_stack_of_up_to_8_middleware_nests_as_an_onion(
    kinds: list[str], use_async: bool, tool_calls: int
) -> None:
    if not use_async:
        kinds = [kind for kind in kinds if kind != "async"]
    stack = [KINDS[kind](f"m{index}") for index, kind in enumerate(kinds)]
    turns: list[Any] = [call("lookup", {"query": str(n)}) for n in range(tool_calls)] + ["done"]
    agent = create_agent(ScriptedModel(turns), [lookup], middleware=stack)
    request = {"messages": [("user", "hi")]}
    result = asyncio.run(agent.ainvoke(request)) if use_async else agent.invoke(request)
    labels = hook_labels(result)
    model_turns = tool_calls + 1

    def only(hook: str) -> list[str]:
        return [label for label in labels if f".{hook}:" in label]

    assert only("wrap_model_call") == _expected_onion(stack, "wrap_model_call", model_turns)
    assert only("wrap_tool_call") == _expected_onion(stack, "wrap_tool_call", tool_calls)
    before = [m.name for m in stack if _has(m, "before_model")]
    after = [m.name for m in reversed(stack) if _has(m, "after_model")]
    assert [x for x in only("before_model") if x.endswith("enter")] == [
        f"{n}.before_model:enter" for n in before
    ] * model_turns
    assert [x for x in only("after_model") if x.endswith("enter")] == [
        f"{n}.after_model:enter" for n in after
    ] * model_turns
    assert result.text == "done"
