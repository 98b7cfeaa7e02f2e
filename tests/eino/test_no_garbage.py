"""An Eino run on a RecordingModel is freed by reference counting: a contract check builds a
fresh agent and model per example, and a cycle through them (the model keeps its recorded
requests, their provenance the values passed between the model layers, and those the model)
would leave every example's run to the garbage collector."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from hookproof.eino import ChatModelAgent
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.runtime import ToolMessage, tool
from hookproof.snapshot import render
from tests.eino.helpers import Annotating, Briefing


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"found:{query}"


def _turn(request: Any) -> Any:
    if any(isinstance(message, ToolMessage) for message in request.messages):
        return "done"
    return call("lookup", {"query": "x"}, id="call_0")


def plain_agent(model: RecordingModel) -> ChatModelAgent:
    return ChatModelAgent(model=model, tools=[lookup])


def agent_with_handlers(model: RecordingModel) -> ChatModelAgent:
    return ChatModelAgent(
        model=model, tools=[lookup], instruction="You help.", handlers=[Briefing(), Annotating()]
    )


def left_after_runs(build: Callable[[RecordingModel], ChatModelAgent], streaming: bool) -> int:
    """Objects the collector frees after five runs, each on a fresh agent and RecordingModel
    dropped after the run."""

    def once() -> None:
        model = RecordingModel(ScriptedModel(_turn))
        run = build(model).run([("user", "hi")], enable_streaming=streaming)
        assert run.error is None and run.text == "done"
        assert len(model.requests) == 2  # both model calls recorded, provenance unread

    once()  # warm: first runs fill caches
    gc.collect()
    for _ in range(5):
        once()
    return gc.collect()


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


AGENTS = pytest.mark.parametrize(
    "build", [plain_agent, agent_with_handlers], ids=["plain", "handlers"]
)


@AGENTS
@pytest.mark.parametrize("streaming", [False, True], ids=["generate", "stream"])
@pytest.mark.usefixtures("collector_off")
def test_a_dropped_recording_model_leaves_nothing_to_the_garbage_collector(
    build: Callable[[RecordingModel], ChatModelAgent], streaming: bool
) -> None:
    assert left_after_runs(build, streaming) == 0


class _KeepingTheCall:
    """Provenance that also keeps the model call it was read from (session 14's did)."""

    def __init__(self, pending: Any, call: Any) -> None:
        self.pending, self.call = pending, call

    def resolve(self) -> Any:
        return self.pending.resolve()


@AGENTS
@pytest.mark.usefixtures("collector_off")
def test_provenance_that_keeps_the_model_call_is_caught(
    build: Callable[[RecordingModel], ChatModelAgent], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The buggy twin: provenance that keeps the value passed to the innermost model step
    closes the cycle model -> recorded request -> provenance -> model call -> model."""
    from hookproof.eino._notes import EinoNotes

    read = EinoNotes.model_called
    monkeypatch.setattr(
        EinoNotes,
        "model_called",
        lambda self, call, request: _KeepingTheCall(read(self, call, request), call),
    )
    assert left_after_runs(build, streaming=False) > 0


@pytest.mark.usefixtures("collector_off")
def test_provenance_that_keeps_the_layers_values_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The buggy twin of a run whose handlers change the model call: provenance that keeps
    the values passed between the model layers as they are closes the same cycle."""
    from hookproof.eino import _notes

    monkeypatch.setattr(_notes, "_plain", lambda value, call, request: value)
    assert left_after_runs(agent_with_handlers, streaming=False) > 0


def test_the_provenance_read_after_the_run_names_each_change() -> None:
    """What the notes keep is enough to say who wrote each system-prompt line, read once the
    run is over (what a snapshot shows)."""
    model = RecordingModel(ScriptedModel(_turn))
    agent_with_handlers(model).run([("user", "hi")])
    provenance = render(model.requests[0])
    provenance = provenance[provenance.index("\nprovenance:\n") + 1 :]
    assert provenance.splitlines() == [
        "provenance:",
        "  system 1: agent",
        "  system 2: Briefing",
        "  system 3: Annotating",
        "  tool lookup: registered by agent",
    ]
