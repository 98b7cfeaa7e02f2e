"""The engine's one typed interface: a third, tiny dialect runs on it with nothing but the
Dialect methods, and gets the loop, layers, state, trace, limits and checkpoints for free."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from hookproof._engine import (
    STEP,
    Dialect,
    Engine,
    InMemoryCheckpointer,
    Layer,
    NodeHook,
    Phase,
    RunHandle,
    Stack,
    StateSpec,
    drive,
    interrupt,
)
from hookproof._support.frozen import FrozenDict, FrozenList
from hookproof.errors import MissingAsyncHookError
from hookproof.messages import AssistantMessage, Message, ToolCall, ToolMessage, UserMessage
from hookproof.models import ScriptedModel, call
from hookproof.requests import ModelRequest, ModelResponse


class Tiny(Dialect):
    """Plain functions as tools; the model layers pass a tuple of messages; a call counts as
    answered by any later ToolMessage; at most ``limit`` model calls."""

    def __init__(self, model: Any, tools: dict[str, Any], stack: Stack, limit: int = 5) -> None:
        state = StateSpec([])
        super().__init__(name="tiny", model=model, stack=stack, state=state)
        self.tools, self.limit = tools, limit

    def before_model_call(self, run: RunHandle) -> None:
        if run.model_calls >= self.limit:
            raise RuntimeError(f"over {self.limit} model calls")

    def model_input(self, run: RunHandle) -> tuple[Message, ...]:
        return tuple(run.state["messages"])

    def final_request(self, call: tuple[Message, ...]) -> ModelRequest:
        return ModelRequest(model=self.model, messages=FrozenList(call), state=FrozenDict())

    def model_answer(self, call: Any, response: ModelResponse) -> AssistantMessage:
        assert response.message is not None
        return response.message

    def model_output(self, run: RunHandle, outcome: AssistantMessage) -> None:
        run.update({"messages": [outcome]}, source="model")

    def pending_calls(self, run: RunHandle, messages: Sequence[Message]) -> list[ToolCall] | None:
        last = messages[-1]
        if not isinstance(last, AssistantMessage) or not last.tool_calls:
            return None
        return list(last.tool_calls)

    def tool_input(self, run: RunHandle, call: ToolCall, state: FrozenDict) -> ToolCall:
        return call

    def tool_called(self, value: ToolCall) -> tuple[str, str]:
        return value.name, value.id or ""

    def execute_tool(self, value: ToolCall) -> ToolMessage:
        text = self.tools[value.name](**value.args)
        return ToolMessage(content=text, tool_call_id=value.id or "")

    async def aexecute_tool(self, value: ToolCall) -> ToolMessage:
        return self.execute_tool(value)

    def checked_tool_result(self, call: ToolCall, result: Any) -> Any:
        return result

    def ends_run(self, calls: Sequence[ToolCall]) -> bool:
        return False


def _model() -> ScriptedModel:
    return ScriptedModel([call("echo", {"text": "hi"}), "done"])


def _run(engine: Engine, **kwargs: Any) -> Any:
    coroutine = engine.run({"messages": [UserMessage(content="go")]}, None, sync=True, **kwargs)
    return drive(coroutine)


def _shout(value: tuple[Message, ...], handler: Any) -> Any:
    return handler(value).override(content="DONE") if len(value) > 2 else handler(value)


def test_a_third_dialect_gets_the_loop_layers_state_and_trace() -> None:
    before = NodeHook("counter", "before_model", lambda state, runtime: None, None)
    stack = Stack(before_model=(before,), model_layers=(Layer("shout", "wrap", _shout, None),))
    engine = Engine(Tiny(_model(), {"echo": lambda text: text.upper()}, stack))

    result = _run(engine)

    assert [m.text for m in result.messages] == ["go", "", "HI", "DONE"]
    labels = [(e.kind, e.hook, e.phase) for e in result.trace.events if e.kind != "state"]
    assert labels.count(("hook", "before_model", "enter")) == 2
    assert labels.count(("layer", "wrap", "enter")) == 2
    assert ("tool", "tool", "enter") in labels
    assert len(result.final_requests) == 2


def test_the_dialect_decides_the_model_call_limit() -> None:
    model = ScriptedModel([call("echo", {"text": "a"}), call("echo", {"text": "b"}), "done"])
    engine = Engine(Tiny(model, {"echo": lambda text: text}, Stack(), limit=2))

    with pytest.raises(RuntimeError, match="over 2 model calls"):
        _run(engine)


def test_async_runs_use_the_same_loop() -> None:
    engine = Engine(Tiny(_model(), {"echo": lambda text: text}, Stack()))

    result = asyncio.run(engine.run({"messages": [UserMessage(content="go")]}, None, sync=False))

    assert result.messages[-1].text == "done"


def test_checkpoints_and_interrupts_come_with_the_engine() -> None:
    asked: list[Any] = []

    def ask(state: Any, runtime: Any) -> None:
        asked.append(interrupt("may I?"))

    stack = Stack(before_agent=(NodeHook("gate", "before_agent", ask, None),))
    engine = Engine(Tiny(_model(), {"echo": lambda text: text}, stack)).with_checkpointer(
        InMemoryCheckpointer()
    )

    paused = _run(engine, thread_id="t")
    assert [item.value for item in paused.interrupts] == ["may I?"]

    resumed = drive(engine.run(None, None, sync=True, thread_id="t", resume="yes"))
    assert asked == ["yes"] and resumed.messages[-1].text == "done"


class Watcher:
    """An observer that writes down what the engine reports."""

    def __init__(self, seen: list[Any]) -> None:
        self.seen = seen

    def request_passed(self, owner: str, received: Any, passed: Any) -> None:
        self.seen.append(("passed", owner, len(received), len(passed)))

    def request_returned(self) -> None:
        self.seen.append(("returned",))

    def model_called(self, call: Any, request: ModelRequest) -> Any:
        self.seen.append(("model", len(request.messages)))
        return None


def _trim(value: tuple[Message, ...], handler: Any) -> Any:
    return handler(value[-1:])


def test_the_engine_tells_the_run_observer_what_the_model_layers_did() -> None:
    seen: list[Any] = []
    layers = (Layer("keep", "wrap", lambda v, h: h(v), None), Layer("trim", "wrap", _trim, None))
    engine = Engine(
        Tiny(_model(), {"echo": lambda text: text}, Stack(model_layers=layers)),
        observe=lambda: Watcher(seen),
    )

    result = _run(engine)

    assert seen == [
        ("model", 1),  # one message: trim passed on what it received, so no change
        ("passed", "trim", 3, 1),
        ("model", 1),
        ("returned",),
    ]
    assert all(request.provenance is None for request in result.final_requests)


def test_each_run_gets_an_observer_of_its_own() -> None:
    made: list[Watcher] = []

    def observe() -> Watcher:
        made.append(Watcher([]))
        return made[-1]

    engine = Engine(Tiny(ScriptedModel(["a", "b"]), {}, Stack()), observe=observe)
    _run(engine)
    _run(engine)

    assert len(made) == 2 and made[0] is not made[1]
    assert made[0].seen == made[1].seen == [("model", 1)]


def test_phases_are_an_enum_in_loop_order() -> None:
    assert [phase.value for phase in Phase] == [
        "before_agent",
        "before_model",
        "model",
        "after_model",
        "tools",
        "after_agent",
        "done",
    ]


def test_a_dialect_must_implement_the_whole_interface() -> None:
    class Half(Dialect):
        def before_model_call(self, run: RunHandle) -> None:
            return None

    with pytest.raises(TypeError, match="abstract"):
        Half(name="half", model=None, stack=Stack(), state=StateSpec([]))  # type: ignore[abstract]


class _Listener:
    """Records what a StepListener hears; suspends at each step's end when asked."""

    def __init__(self, suspend: bool = False) -> None:
        self.heard: list[tuple[Any, ...]] = []
        self.suspend = suspend
        self.state: Any = None

    def run_started(self, state: Any) -> None:
        self.state = state

    def step_started(self, step: str) -> None:
        self.heard.append(("start", step))

    def tool_started(self, call: Any) -> None:
        self.heard.append(("tool", call.name))

    def tool_finished(self, call: Any, result: Any) -> None:
        self.heard.append(("tool done", call.name, result.text))

    def state_updated(self, update: Any, source: str) -> None:
        self.heard.append(("update", source, tuple(update)))

    def step_finished(self, step: str) -> bool:
        self.heard.append(("end", step, len(self.state()["messages"])))
        return self.suspend


def _echo_engine() -> Engine[Tiny]:
    before = NodeHook("count", "before_model", lambda state, runtime: None, None)
    return Engine(
        Tiny(_model(), {"echo": lambda text: text.upper()}, Stack(before_model=(before,)))
    )


def test_a_step_listener_hears_each_step_update_and_tool_call_in_order() -> None:
    listener = _Listener()
    result = drive(
        _echo_engine().run({"messages": [UserMessage("hi")]}, None, sync=True, listener=listener)
    )
    assert listener.heard == [
        ("update", "input", ("messages",)),
        ("start", "count.before_model"),
        ("end", "count.before_model", 1),
        ("start", "model"),
        ("update", "model", ("messages",)),
        ("end", "model", 2),
        ("start", "tools"),
        ("tool", "echo"),
        ("tool done", "echo", "HI"),
        ("update", "tool", ("messages",)),
        ("end", "tools", 3),
        ("start", "count.before_model"),
        ("end", "count.before_model", 3),
        ("start", "model"),
        ("update", "model", ("messages",)),
        ("end", "model", 4),
    ]
    unheard = drive(_echo_engine().run({"messages": [UserMessage("hi")]}, None, sync=True))
    assert result.trace.events == unheard.trace.events  # listening changes nothing


def test_a_listener_can_suspend_a_synchronous_run_at_each_step_end() -> None:
    listener = _Listener(suspend=True)
    run = _echo_engine().run({"messages": [UserMessage("hi")]}, None, sync=True, listener=listener)
    ends, result = [], None
    while result is None:
        try:
            assert run.send(None) == STEP
            ends.append(listener.heard[-1][1])
        except StopIteration as stopped:
            result = stopped.value
    assert ends == ["count.before_model", "model", "tools", "count.before_model", "model"]
    assert result.messages[-1].text == "done"
    with pytest.raises(MissingAsyncHookError):  # drive() never resumes a suspended run
        drive(
            _echo_engine().run(
                {"messages": [UserMessage("hi")]}, None, sync=True, listener=_Listener(True)
            )
        )
