"""A history whose versions share storage behaves as the tuple (FrozenList) it replaces.

Differential: generated sequences of updates build versions of a history both ways (the
History the engine uses, and FrozenList tuples), older versions are extended again (which
branches the shared log), and every version must answer every public use the same way.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable, Sequence
from itertools import count, pairwise
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof._engine.state import add_messages
from hookproof._support.frozen import FrozenList, freeze, thaw
from hookproof._support.history import History
from hookproof.errors import ImmutableError, InvalidInputError
from hookproof.messages import AssistantMessage, Message, UserMessage
from hookproof.models import ScriptedModel, call
from hookproof.runtime import create_agent, tool
from tests.runtime.test_state_reducer import messages as reducer_messages
from tests.runtime.test_state_reducer import reference, removals

_serial = count()
messages = st.builds(
    lambda assistant: (AssistantMessage if assistant else UserMessage)(f"m{next(_serial)}"),
    st.booleans(),
)
# (which earlier version to extend, what to append): version 0 is the start.
steps = st.lists(st.tuples(st.integers(min_value=0), st.lists(messages, max_size=4)), max_size=12)


def versions_both_ways(
    start: list[Message], plan: list[tuple[int, list[Message]]]
) -> list[tuple[History[Message], FrozenList[Message]]]:
    versions = [(History(start), FrozenList(start))]
    for pick, added in plan:
        history, expected = versions[pick % len(versions)]
        versions.append((history.extended(added), FrozenList((*expected, *added))))
    return versions


def _probes(other: Sequence[Message]) -> dict[str, Callable[[Sequence[Any]], Any]]:
    """Every public use of a history, each giving a comparable answer (or the error type)."""
    probe_item = other[0] if other else UserMessage("absent")
    return {
        "len": len,
        "list": list,
        "tuple": tuple,
        "reversed": lambda h: list(reversed(h)),
        "repr": repr,
        "str": str,
        "bool": bool,
        "hash": hash,
        "eq list": lambda h: h == list(other),
        "eq tuple": lambda h: h == tuple(other),
        "eq frozen": lambda h: h == FrozenList(other),
        "ne list": lambda h: h != list(other),
        "tuple eq": lambda h: tuple(other) == h,
        "list eq": lambda h: list(other) == h,
        "frozen eq": lambda h: FrozenList(other) == h,
        "lt": lambda h: h < tuple(other),
        "ge": lambda h: h >= tuple(other),
        "add tuple": lambda h: h + tuple(other),
        "radd tuple": lambda h: tuple(other) + h,
        "mul": lambda h: h * 2,
        "contains": lambda h: probe_item in h,
        "count": lambda h: h.count(probe_item),
        "index": lambda h: h.index(probe_item),
        "index from 1": lambda h: h.index(probe_item, 1),
        "unpacked": lambda h: [*h, "end"],
        "first": lambda h: h[0],
        "last": lambda h: h[-1],
        "out of range": lambda h: h[len(h)],
        "slice": lambda h: h[1:-1],
        "step": lambda h: h[::2],
        "backwards": lambda h: h[::-1],
        "backwards from 2": lambda h: h[2::-2],
        "set": lambda h: len({h, tuple(h)}),
        "thaw": thaw,
        "freeze keeps": lambda h: freeze(h) is h,
        "copy": lambda h: copy.copy(h) == h,
        "deepcopy": lambda h: copy.deepcopy(h) == h,
        "pickled": lambda h: pickle.loads(pickle.dumps(h)) == h,
        "append": lambda h: h.append(probe_item),
        "setitem": lambda h: h.__setitem__(0, probe_item),
    }


def answer(probe: Callable[[Sequence[Any]], Any], value: Sequence[Any]) -> Any:
    try:
        return ("value", probe(value))
    except (ImmutableError, IndexError, TypeError, ValueError) as error:  # the type is the answer
        return ("error", type(error).__name__)


@given(start=st.lists(messages, max_size=4), plan=steps)
def test_every_version_answers_every_use_as_its_tuple(
    start: list[Message], plan: list[tuple[int, list[Message]]]
) -> None:
    versions = versions_both_ways(start, plan)
    for history, expected in versions:
        for other_history, other in versions[-2:]:
            for name, probe in _probes(other).items():
                assert answer(probe, history) == answer(probe, expected), name
            assert (history == other_history) == (expected == other)


@given(start=st.lists(messages, max_size=4), plan=steps)
def test_an_older_version_is_untouched_by_later_appends(
    start: list[Message], plan: list[tuple[int, list[Message]]]
) -> None:
    versions = versions_both_ways(start, plan)
    for history, expected in versions:
        assert len(history) == len(expected)
        assert all(a is b for a, b in zip(history, expected, strict=True))


@pytest.mark.parametrize("use", ["mutator", "setitem", "delitem"])
def test_changing_a_history_in_place_says_how_to_build_a_new_one(use: str) -> None:
    history = History([UserMessage("a")])
    change: dict[str, Callable[[], Any]] = {
        "mutator": lambda: history.append(UserMessage("b")),
        "setitem": lambda: history.__setitem__(0, UserMessage("b")),
        "delitem": lambda: history.__delitem__(0),
    }
    with pytest.raises(ImmutableError, match=r"request\.override"):
        change[use]()


def test_appending_to_the_newest_version_shares_its_storage() -> None:
    first = History([UserMessage("a")])
    second = first.extended([UserMessage("b")])
    third = second.extended([UserMessage("c")])
    branch = second.extended([UserMessage("other")])

    assert third.shares_prefix(second) and third.shares_prefix(first)
    assert not branch.shares_prefix(third)  # a branch copies: the log already went on
    assert [m.text for m in branch] == ["a", "b", "other"]
    assert [m.text for m in third] == ["a", "b", "c"]


@given(
    start=st.lists(reducer_messages, max_size=6),
    batches=st.lists(
        st.lists(st.one_of(reducer_messages, reducer_messages, removals), max_size=5), max_size=6
    ),
)
def test_the_reducer_gives_histories_that_answer_as_the_reference_tuples(
    start: list[Message], batches: list[list[Any]]
) -> None:
    current: Sequence[Message] = start
    for batch in batches:
        try:
            expected = FrozenList(reference(current, batch))
        except InvalidInputError:  # a refused removal, refused alike (test_state_reducer)
            continue
        current = add_messages(current, batch)
        for name, probe in _probes(expected).items():
            assert answer(probe, current) == answer(probe, expected), name


def test_a_run_and_its_requests_share_one_history_that_dumps_as_tuples() -> None:
    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        return f"found:{query}"

    turns = 4
    played = count()

    def turn(request: object) -> Any:
        index = next(played)
        return "done" if index == turns else call("lookup", {"query": "x"}, id=f"c{index}")

    result = create_agent(ScriptedModel(turn), [lookup]).invoke({"messages": [("user", "hi")]})
    requests = result.final_requests

    assert [len(request.messages) for request in requests] == [1, 3, 5, 7, 9]
    assert all(
        later.messages.shares_prefix(earlier.messages)  # type: ignore[attr-defined]
        for earlier, later in pairwise(requests)
    )
    validated = [type(r)(**{**r.__dict__, "messages": tuple(r.messages)}) for r in requests]
    for request, plain in zip(requests, validated, strict=True):
        assert isinstance(request.messages, History)
        assert request.model_dump() == plain.model_dump()
        assert request.model_dump_json() == plain.model_dump_json()
        assert request == plain and hash(request) == hash(plain)


@given(start=st.lists(messages, max_size=4), plan=steps)
def test_since_gives_the_items_after_a_known_beginning_and_none_otherwise(
    start: list[Message], plan: list[tuple[int, list[Message]]]
) -> None:
    versions = [history for history, _ in versions_both_ways(start, plan)]
    for history in versions:
        assert history.since(()) == list(history)
        for head in versions:
            found = history.since(head)
            if found is None:  # not known to begin the history: not an earlier version on its log
                assert not history.shares_prefix(head)
            else:
                assert list(head) + found == list(history)
        if history:  # a plain list is not known to begin it, even with the same items
            assert history.since(list(history)) is None
