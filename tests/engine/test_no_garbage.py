"""A finished run is freed by reference counting: nothing of it waits for the garbage
collector (a cycle through the run would keep its trace, state, messages and requests alive
until a collection, and make every invoke pay for collections)."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from hookproof._engine.run import Run
from hookproof.eino import ChatModelAgent
from hookproof.eino._exec import RunExec
from hookproof.models import ScriptedModel, call
from hookproof.runtime import AgentMiddleware, ToolMessage, create_agent, tool


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"found:{query}"


class Passing(AgentMiddleware):
    def before_model(self, state: Any, runtime: Any) -> None:
        return None

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request)

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        return handler(request)


def runtime_run() -> Callable[[], Any]:
    model = ScriptedModel(
        lambda request: "done" if len(request.messages) > 1 else call("lookup", {"query": "x"})
    )
    agent = create_agent(model, [lookup], middleware=[Passing()])
    return lambda: agent.invoke({"messages": [("user", "hi")]})


def eino_run() -> Callable[[], Any]:
    model = ScriptedModel(
        lambda request: "done" if len(request.messages) > 1 else call("lookup", {"query": "x"})
    )
    agent = ChatModelAgent(model=model, tools=[lookup])
    return lambda: agent.run([("user", "hi")])


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def left_for_the_collector(run: Callable[[], Any]) -> int:
    run()  # warm: first runs fill caches
    gc.collect()
    assert any(isinstance(message, ToolMessage) for message in run().messages)  # a tool ran
    return gc.collect()


@pytest.mark.parametrize("build", [runtime_run, eino_run], ids=["runtime", "eino"])
@pytest.mark.usefixtures("collector_off")
def test_a_finished_run_leaves_nothing_to_the_garbage_collector(
    build: Callable[[], Callable[[], Any]],
) -> None:
    assert left_for_the_collector(build()) == 0


@pytest.mark.usefixtures("collector_off")
def test_a_run_that_kept_its_handle_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The buggy twin: a run that keeps its handle after the loop leaves a cycle."""
    monkeypatch.setattr(Run, "release", lambda self: None)
    assert left_for_the_collector(runtime_run()) > 0


@pytest.mark.usefixtures("collector_off")
def test_an_eino_run_that_kept_its_handle_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(RunExec, "finish", lambda self: setattr(self, "finished", True))
    assert left_for_the_collector(eino_run()) > 0


def build_and_drop() -> int:
    """Garbage left by building an agent, running it once and dropping it (the tool and
    middleware are defined at module level: classes made inside a factory are cycles)."""
    model = ScriptedModel(["done"])
    create_agent(model, [lookup], middleware=[Passing()])  # warm: first builds fill caches
    gc.collect()
    agent = create_agent(ScriptedModel(["done"]), [lookup], middleware=[Passing()])
    assert agent.invoke({"messages": [("user", "hi")]}).text == "done"
    del agent
    return gc.collect()


@pytest.mark.usefixtures("collector_off")
def test_a_dropped_agent_leaves_nothing_to_the_garbage_collector() -> None:
    """A contract check builds an agent per example: its chains must not hold themselves."""
    assert build_and_drop() == 0


@pytest.mark.usefixtures("collector_off")
def test_an_agent_that_refers_to_itself_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The buggy twin: an engine that holds itself (as its chains did through their bound
    methods) is left to the collector."""
    from hookproof._engine import Engine

    built = Engine.__init__

    def holding_itself(self: Any, *args: Any, **kwargs: Any) -> None:
        built(self, *args, **kwargs)
        self.itself = self

    monkeypatch.setattr(Engine, "__init__", holding_itself)
    assert build_and_drop() > 0


def recorded_agent_runs(times: int) -> int:
    """Garbage left by ``times`` runs of a fresh agent on a fresh RecordingModel, each dropped
    after the run (what a contract check does per example)."""
    from hookproof.models import RecordingModel

    def once() -> None:
        model = RecordingModel(
            ScriptedModel(
                lambda request: (
                    "done" if len(request.messages) > 1 else call("lookup", {"query": "x"})
                )
            )
        )
        agent = create_agent(model, [lookup], middleware=[Passing()])
        agent.invoke({"messages": [("user", "hi")]})
        assert len(model.requests) == 2  # both model calls recorded, with their provenance

    once()  # warm: first runs fill caches
    gc.collect()
    for _ in range(times):
        once()
    return gc.collect()


@pytest.mark.usefixtures("collector_off")
def test_a_dropped_recording_model_leaves_nothing_to_the_garbage_collector() -> None:
    """A recorded request's pending provenance keeps only what it reads of the requests, not
    the requests (each holds the model, which holds the recorded requests)."""
    assert recorded_agent_runs(5) == 0


@pytest.mark.usefixtures("collector_off")
def test_provenance_that_keeps_the_requests_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The buggy twin: pending provenance that holds the final request closes the cycle
    model -> recorded request -> provenance -> request -> model."""
    from hookproof import provenance

    kept = provenance.ProvenanceNotes.model_called

    def holding_the_request(self: Any, call: Any, request: Any) -> Any:
        pending = kept(self, call, request)
        pending.request = request
        return pending

    monkeypatch.setattr(provenance.ProvenanceNotes, "model_called", holding_the_request)
    assert recorded_agent_runs(5) > 0
