"""A dialect's one-call state writes (``RunHandle.append_messages`` with its state spec's own
append, ``RunHandle.set_value``) leave the state and trace exactly as ``update`` does."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

import pytest

from hookproof._engine import Engine, RunHandle, Stack, StateSpec, drive
from hookproof._support.frozen import FrozenList
from hookproof.errors import InvalidInputError
from hookproof.messages import AssistantMessage, UserMessage
from hookproof.models import ScriptedModel, call
from tests.engine.test_dialect import Tiny

Write = Callable[[RunHandle, AssistantMessage], None]


def _appended(current: Any, new: Any) -> FrozenList[Any]:
    return FrozenList([*(current or ()), *new])


class Writing(Tiny):
    """Tiny, whose model step writes through ``write`` on a given state spec."""

    def __init__(self, spec: StateSpec, write: Write) -> None:
        model = ScriptedModel([call("echo", {"text": "hi"}), "done"])
        super().__init__(model, {"echo": lambda text: text}, Stack())
        self.state, self.write = spec, write

    def model_output(self, run: RunHandle, outcome: AssistantMessage) -> None:
        self.write(run, outcome)


def _one_call(run: RunHandle, outcome: AssistantMessage) -> None:
    run.set_value("count", run.model_calls, source="model")
    run.append_messages([outcome], source="model")


def _updates(run: RunHandle, outcome: AssistantMessage) -> None:
    run.update({"count": run.model_calls}, source="model")
    run.update({"messages": [outcome]}, source="model")


def _outcome(spec: StateSpec, write: Write) -> tuple[Any, list[tuple[Any, ...]]]:
    run = Engine(Writing(spec, write)).run(
        {"messages": [UserMessage(content="go")]}, None, sync=True
    )
    result = drive(run)
    rows = [(e.kind, e.hook, e.phase, e.middleware, e.depth, e.data) for e in result.trace.events]
    return result.state, rows


def test_one_call_writes_leave_what_updates_leave() -> None:
    def spec() -> StateSpec:
        return StateSpec([], messages_reducer=_appended, append=_appended)

    state, rows = _outcome(spec(), _one_call)

    assert (state, rows) == _outcome(spec(), _updates)
    assert [m.text for m in state["messages"]] == ["go", "", "hi", "done"]
    assert type(state["messages"]) is FrozenList
    assert state["count"] == 2
    assert ("state", "update", "update", None, 1, {"by": "model", "keys": ("count",)}) in rows


class Counted(TypedDict):
    count: Annotated[int, operator.add]


def test_set_value_takes_the_reducer_of_a_key_that_has_one() -> None:
    state, _ = _outcome(StateSpec([Counted], messages_reducer=_appended), _one_call)

    assert state["count"] == 1 + 2  # the first write as given, the second added (update's rule)


class Other(TypedDict):
    other: int


def test_set_value_refuses_an_undeclared_key_as_update_does() -> None:
    spec = StateSpec([Other], messages_reducer=_appended)  # strict: declares a key of its own

    with pytest.raises(InvalidInputError, match="'count'"):
        _outcome(spec, _one_call)


def test_set_value_freezes_a_mutable_value_as_update_does() -> None:
    def write_list(run: RunHandle, outcome: AssistantMessage) -> None:
        run.set_value("seen", [run.model_calls], source="model")
        run.append_messages([outcome], source="model")

    state, _ = _outcome(StateSpec([], messages_reducer=_appended, append=_appended), write_list)

    assert state["seen"] == (2,)
    assert type(state["seen"]) is FrozenList
