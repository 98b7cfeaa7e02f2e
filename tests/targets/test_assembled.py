"""``assembled`` builds a frozen dataclass without its per-field setattr: the instance must be
the one the constructor makes, for each class a check builds that way."""

from __future__ import annotations

import dataclasses

import pytest

from hookproof._support.assembled import assembled
from hookproof.contracts import CheckReport
from hookproof.targets import RunSettings, TargetRun
from hookproof.trace import TraceEvent

CASES = [
    (TargetRun, {"called": ("fast",), "paused": "why", "reached": ("tool x",)}),
    (TargetRun, {}),
    (
        RunSettings,
        {"context": {"role": "admin"}, "input": {}, "on_interrupt": "approve", "config": None},
    ),
    (CheckReport, {"check": "check_fail_closed", "runs": 2, "contexts": ("None",)}),
]


@pytest.mark.parametrize(("cls", "values"), CASES)
def test_assembled_is_what_the_constructor_makes(cls: type, values: dict[str, object]) -> None:
    made, fast = cls(**values), assembled(cls, **values)
    assert type(fast) is cls
    assert fast == made
    assert repr(fast) == repr(made)
    assert dataclasses.asdict(fast) == dataclasses.asdict(made)
    if cls is CheckReport:  # the others hold dicts, unhashable either way
        assert hash(fast) == hash(made)


def test_assembled_values_stay_frozen_and_defaults_stay_fresh() -> None:
    first, second = assembled(TargetRun), assembled(TargetRun)
    assert first.models is not second.models  # a default factory runs per instance
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.paused = "changed"  # type: ignore[misc]
    assert first.visible_tools == set()  # a cached_property still has its __dict__


def test_assembled_refuses_what_the_constructor_refuses() -> None:
    with pytest.raises(TypeError, match="context"):
        assembled(RunSettings, input={}, on_interrupt="approve", config=None)
    with pytest.raises(TypeError, match="colour"):
        assembled(TargetRun, colour="red")
    with pytest.raises(TypeError, match="__slots__"):
        assembled(TraceEvent, seq=0, kind="agent", hook="run", phase="enter")
