"""A model call and the tool calls it asks for share one helper-thread visit under ainvoke()
(``_engine/fused.py``) when only the engine's bookkeeping runs between them, and nothing any
hook, model or tool sees changes: the same threads (kind and identity), the same context
variables, order, trace, results and errors as when each wrapped call has its own visit."""

from __future__ import annotations

import asyncio
import threading
from typing import Annotated, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookproof.models import ScriptedModel
from hookproof.runtime import AgentMiddleware, AgentState, create_agent
from tests.runtime.test_ainvoke_threads import (
    HI,
    LAYERS,
    MARK,
    WAIT_SECONDS,
    Node,
    Places,
    SyncWrap,
    brief_wait,
    build,
    hand_backs,
    lookup_noting,
    turn_noting,
)


class Stopping(SyncWrap):
    """A sync wrap hook that raises StopIteration (a coroutine turns it into RuntimeError)."""

    def _wrapped(self, kind: str, request: Any, handler: Any) -> Any:
        self.places.note(f"{self.label}.{kind}")
        raise StopIteration(kind)


class AfterModel(AgentMiddleware):
    def __init__(self, places: Places) -> None:
        self.places = places

    def after_model(self, state: Any, runtime: Any) -> None:
        self.places.note("after_model")


KINDS = {**LAYERS, "stop": Stopping}


def unfused(agent: Any) -> Any:
    """``agent`` with every wrapped call in a visit of its own (the path before fused.py)."""
    agent._engine.chains.fused = None
    return agent


def fused(agent: Any) -> bool:
    return agent._engine.chains.fused is not None


def seen(layers: tuple[str, ...], model: str, tool_kind: str, nodes: str, *, fuse: bool) -> Any:
    """What one ainvoke() showed: its outcome, and what each piece saw: thread kind, thread
    identity (by first appearance), whether a loop runs there, the context variable."""
    places = Places()
    agent = build(places, (), model, tool_kind)  # its tool and model; middleware below
    middleware: list[Any] = [KINDS[kind](places, f"{kind}{i}") for i, kind in enumerate(layers)]
    middleware += [Node(places)] if "before" in nodes else []
    middleware += [AfterModel(places)] if "after" in nodes else []
    agent = create_agent(agent._engine.dialect.model, list(agent.tools), middleware=middleware)
    agent = agent if fuse else unfused(agent)

    async def main() -> Any:
        MARK.set("caller")
        try:
            result = await asyncio.wait_for(agent.ainvoke(HI), WAIT_SECONDS)
        except Exception as error:  # noqa: BLE001 - the error is part of what is compared
            return f"{type(error).__name__}: {error}"
        return (result.messages, result.trace, result.final_requests)

    outcome = asyncio.run(main())
    first: dict[int, int] = {}
    threads = [first.setdefault(ident, len(first)) for *_, ident in places.seen]
    return outcome, places.places(), places.marks(), threads


stacks = st.lists(st.sampled_from(sorted(KINDS)), min_size=1, max_size=3, unique=True).map(tuple)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    layers=stacks,
    model=st.sampled_from(["scripted", "async"]),
    tool_kind=st.sampled_from(["sync", "async", "both", "broken"]),
    nodes=st.sampled_from(["", "before", "after", "before after"]),
    brief=st.sampled_from([0.0, WAIT_SECONDS]),
)
def test_one_visit_per_turn_shows_what_one_visit_per_wrapped_call_showed(
    layers: tuple[str, ...], model: str, tool_kind: str, nodes: str, brief: float
) -> None:
    with brief_wait(brief):
        assert seen(layers, model, tool_kind, nodes, fuse=True) == seen(
            layers, model, tool_kind, nodes, fuse=False
        )


def test_the_scenario_takes_one_visit_fewer_and_the_model_and_tool_share_its_thread() -> None:
    places = Places()
    agent = build(places, ("sync",), "scripted", "sync")
    assert fused(agent)
    assert hand_backs(agent) == 2
    assert hand_backs(unfused(build(places, ("sync",), "scripted", "sync"))) == 3
    outcome, where, _, threads = seen(("sync",), "scripted", "sync", "before", fuse=True)
    assert outcome[0][-1].text == "done"
    assert ("before_model", ("loop", True)) in where  # a node hook stays on the loop's thread
    assert ("sync0.tool", ("helper", False)) in where
    pairs = list(zip(where, threads, strict=True))
    thread_of = {label: thread for (label, _), thread in reversed(pairs)}  # first seen
    assert thread_of["sync0.model"] == thread_of["sync0.tool"] != thread_of["before_model"]


def test_user_code_between_the_model_and_the_tools_keeps_a_visit_per_wrapped_call() -> None:
    places = Places()
    wraps = [SyncWrap(places, "w")]
    model, tools = ScriptedModel(turn_noting(places)), [lookup_noting(places)]

    after = create_agent(model, tools, middleware=[*wraps, AfterModel(places)])
    assert not fused(after)
    assert hand_backs(after) == 3
    assert ("after_model", ("loop", True)) in places.places()  # on the loop's thread, as before

    class Counted(AgentState):
        count: Annotated[int, lambda old, new: old + new]

    reduced = create_agent(model, tools, middleware=wraps, state_schema=Counted)
    assert not fused(reduced)  # a custom reducer may read where it runs: not on a helper
    assert hand_backs(reduced) == 3

    twin = build(places, ("twin", "sync"), "scripted", "sync")  # an async twin outermost
    assert not fused(twin)
    assert fused(build(places, ("sync", "twin"), "scripted", "sync"))


class Blocking(SyncWrap):
    """Its first wrap_model_call blocks until released, once the test has seen it enter."""

    def __init__(self, places: Places, entered: threading.Event, release: threading.Event):
        super().__init__(places, "block")
        self.entered, self.release = entered, release

    def _wrapped(self, kind: str, request: Any, handler: Any) -> Any:
        if kind == "model" and not self.entered.is_set():
            self.entered.set()
            self.release.wait(WAIT_SECONDS)
        return super()._wrapped(kind, request, handler)


def cancelled_during_the_first_model_call(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What ran of a run cancelled while its first wrap_model_call blocked, once that hook
    and the helper visit around it finished apart: no tool call and no state written after
    the cancellation."""
    from hookproof._engine import fused as fused_module

    visited, visit = threading.Event(), fused_module.FusedTurn._visit

    def visit_then_say_so(self: Any, *args: Any) -> Any:
        try:
            return visit(self, *args)
        finally:
            visited.set()

    monkeypatch.setattr(fused_module.FusedTurn, "_visit", visit_then_say_so)
    places, entered, release = Places(), threading.Event(), threading.Event()
    agent = create_agent(
        ScriptedModel(turn_noting(places)),
        [lookup_noting(places)],
        middleware=[Blocking(places, entered, release)],
    )
    assert fused(agent)

    async def main() -> None:
        pending = asyncio.ensure_future(agent.ainvoke(HI))
        while not entered.is_set():
            await asyncio.sleep(0.001)
        pending.cancel()
        with pytest.raises(asyncio.CancelledError):
            await pending

    try:
        asyncio.run(main())
    finally:
        release.set()
    # Waits for the visit itself, not for a time: a busy machine only makes it later.
    assert visited.wait(WAIT_SECONDS), "the helper's visit never ended"
    return [label for label, _ in places.places()]


def keeping_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cancelled run keeps its handle: the helper could reach the bookkeeping before the
    cancelled task lets go of it (a race), and only the gate then stops the visit."""
    from hookproof._engine.run import Run

    monkeypatch.setattr(Run, "release", lambda self: None)


def test_a_cancelled_run_starts_no_tool_call_after_the_model_call_it_was_cancelled_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    keeping_the_run(monkeypatch)
    ran = cancelled_during_the_first_model_call(monkeypatch)
    assert "block.model after" in ran  # the blocked hook finished apart, as it always did
    assert "tool" not in ran and "block.tool" not in ran


def test_without_its_gate_a_cancelled_visit_would_run_the_tool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The check above can fail: a visit that ignores its cancellation runs the tool."""
    from hookproof._engine import fused as fused_module

    keeping_the_run(monkeypatch)
    monkeypatch.setattr(fused_module._Gate, "abandon", lambda self: None)
    ran = cancelled_during_the_first_model_call(monkeypatch)
    assert "block.tool" in ran and "tool" in ran


def test_the_differential_catches_a_visit_that_lets_the_model_hook_context_leak(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The differential above can fail: a visit that runs the model chain in its own context
    (not a copy) lets what the model's hook set reach the tool's hook."""
    from hookproof._engine import fused as fused_module

    def leaky_visit(self: Any, loop: Any, value: Any, step: Any, gate: Any) -> Any:
        run = loop.run
        outcome = self._model(run, value)  # the bug: no copy of the context
        gate.lock.acquire()
        try:
            run.model_calls += 1
            loop.dialect.model_output(run.handle, outcome)
            run.phase, run.hook_index = fused_module.Phase.TOOLS, 0
            return self._tools_step(loop, step, gate)
        finally:
            gate.lock.release()

    expected = seen(("sync",), "scripted", "sync", "", fuse=False)
    assert seen(("sync",), "scripted", "sync", "", fuse=True) == expected
    monkeypatch.setattr(fused_module.FusedTurn, "_visit", leaky_visit)
    leaked = seen(("sync",), "scripted", "sync", "", fuse=True)
    assert leaked[0] == expected[0]  # the same messages: only what the hooks saw differs
    assert leaked != expected
    assert ("sync0.tool", "sync0.model") in leaked[2]  # the tool's hook saw the model's mark
