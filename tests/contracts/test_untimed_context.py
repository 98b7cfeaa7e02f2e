"""hookproof knows "no hypothesis example is running" without raising: it reads hypothesis'
build-context variable, and falls back to hypothesis' public accessor (which raises
InvalidArgument outside an example) when a hypothesis keeps no such variable. Both ways give
the same answer inside and outside an example."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import hypothesis.control
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof._support import untimed as untimed_module
from hookproof._support.untimed import untimed


@untimed
def marked() -> str:
    return "ran"


@pytest.fixture(params=["variable", "accessor"])
def accessor_calls(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each call of hypothesis' public accessor, named after the way hookproof reads the build
    context: "variable" (hypothesis' own), or "accessor" where hookproof finds no variable (as
    with a hypothesis that keeps it elsewhere)."""
    if request.param == "accessor":
        monkeypatch.setattr(untimed_module, "_CONTEXT_VARIABLE", "_no_such_variable")
    calls: list[str] = []
    accessor: Callable[[], Any] = hypothesis.control.current_build_context

    def counted() -> Any:
        calls.append(request.param)
        return accessor()

    monkeypatch.setattr(hypothesis.control, "current_build_context", counted)
    return calls


def booked_in_an_example() -> Iterator[tuple[object, dict[str, float]]]:
    seen: list[tuple[object, dict[str, float]]] = []

    @settings(max_examples=2, database=None, deadline=None)
    @given(st.integers())
    def example(_: int) -> None:
        data = hypothesis.control.current_build_context().data
        assert untimed_module._running_example_data("probe") is data
        assert marked() == "ran"
        seen.append((data, dict(data._stateful_run_times)))

    example()
    yield from seen


def test_outside_an_example_nothing_is_booked(accessor_calls: list[str]) -> None:
    assert marked() == "ran"
    assert untimed_module._running_example_data("probe") is None


def test_inside_an_example_the_run_is_booked(accessor_calls: list[str]) -> None:
    booked = list(booked_in_an_example())
    assert len(booked) == 2
    for _, ledger in booked:
        assert "execute:hookproof:marked" in ledger


def test_a_plain_test_asks_hypothesis_nothing_that_raises(
    accessor_calls: list[str], request: pytest.FixtureRequest
) -> None:
    """Outside an example the variable read calls no accessor (which would raise and catch
    InvalidArgument on every check of a plain test); the fallback, the old way, does."""
    way = request.node.callspec.params["accessor_calls"]
    marked()
    untimed_module._running_example_data("probe")
    assert accessor_calls == ([] if way == "variable" else ["accessor", "accessor"])
