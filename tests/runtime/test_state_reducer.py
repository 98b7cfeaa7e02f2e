"""The messages reducer: replace by id, remove by id or all, against a plain reference."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import count
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof._engine import state
from hookproof._engine.state import add_messages
from hookproof.errors import InvalidInputError
from hookproof.messages import AssistantMessage, Message, RemoveMessage, UserMessage

_serial = count()


def reference(current: Sequence[Message], new: Sequence[Message | RemoveMessage]) -> list[Message]:
    """The reducer's meaning, one scan per message: first match by id wins."""
    result = list(current)
    for message in new:
        matches = [i for i, item in enumerate(result) if item.id == message.id]
        if isinstance(message, RemoveMessage):
            if message.id == RemoveMessage.ALL:
                result = []
            elif not matches:
                raise InvalidInputError(f"RemoveMessage(id={message.id!r})")
            else:
                del result[matches[0]]
        elif message.id is None or not matches:
            result.append(message)
        else:
            result[matches[0]] = message
    return result


@dataclass(frozen=True)
class Refused:
    """An update the reducer refused, by the id it named."""

    text: str

    @classmethod
    def of(cls, error: InvalidInputError) -> Refused:
        return cls(str(error).removeprefix("hookproof: ").partition(")")[0] + ")")


def same(left: Sequence[Message] | Refused, right: Sequence[Message] | Refused) -> bool:
    """The same messages, by identity and in order, or the same refusal."""
    if isinstance(left, Refused) or isinstance(right, Refused):
        return left == right
    return len(left) == len(right) and all(a is b for a, b in zip(left, right, strict=True))


@contextmanager
def index_kept_from(length: int, scan_below: int = state._SCAN_BELOW) -> Iterator[None]:
    """Keep the index from histories of ``length``; scan histories shorter than ``scan_below``."""
    with (
        patch.object(state, "_KEEP_INDEX_FROM", length),
        patch.object(state, "_SCAN_BELOW", scan_below),
    ):
        yield


ids = st.sampled_from(["a", "b", "c", "d", None])
messages = st.builds(
    lambda key, assistant: (AssistantMessage if assistant else UserMessage)(
        f"m{next(_serial)}", id=key
    ),
    ids,
    st.booleans(),
)
removals = st.builds(RemoveMessage, id=st.sampled_from(["a", "b", "c", "d", "zz", "*"]))
updates = st.lists(st.lists(st.one_of(messages, messages, removals), max_size=6), max_size=6)


def run_updates(
    reducer: Any, start: Sequence[Message], batches: list[list[Any]]
) -> list[Sequence[Message] | Refused]:
    """Apply each batch to the previous result; an error is recorded and the history kept."""
    history = start
    seen: list[Sequence[Message] | Refused] = []
    for batch in batches:
        try:
            history = reducer(history, batch)
            seen.append(history)
        except InvalidInputError as error:
            seen.append(Refused.of(error))
    return seen


@pytest.mark.parametrize(("kept_from", "scan_below"), [(0, 0), (3, 0), (3, 6), (10_000, 16)])
@given(start=st.lists(messages, max_size=8), batches=updates)
def test_every_update_sequence_matches_the_reference(
    kept_from: int, scan_below: int, start: list[Message], batches: list[list[Any]]
) -> None:
    with index_kept_from(kept_from, scan_below):
        actual = run_updates(add_messages, start, batches)
    expected = run_updates(reference, start, batches)
    assert len(actual) == len(expected)
    for got, want in zip(actual, expected, strict=True):
        assert same(got, want), (got, want)


@given(start=st.lists(messages, max_size=8), one=updates, other=updates)
def test_two_updates_of_one_history_do_not_share_an_index(
    start: list[Message], one: list[list[Any]], other: list[list[Any]]
) -> None:
    with index_kept_from(0, scan_below=0):
        base = add_messages(start, [])
        first = run_updates(add_messages, list(base), one)
        branch = run_updates(add_messages, base, other)
        again = run_updates(add_messages, base, one)
    assert all(same(a, b) for a, b in zip(first, again, strict=True))
    expected = run_updates(reference, list(base), other)
    assert all(same(a, b) for a, b in zip(branch, expected, strict=True))


def test_replacing_keeps_the_position_and_removing_closes_the_gap() -> None:
    one, two, three = UserMessage("1", id="a"), UserMessage("2", id="b"), UserMessage("3")
    edited = UserMessage("1 edited", id="a")
    result = add_messages([one, two, three], [edited, RemoveMessage(id="b")])
    assert [m.text for m in result] == ["1 edited", "3"]


def test_repeated_ids_in_the_history_are_replaced_and_removed_first_one_first() -> None:
    history = [UserMessage(str(n), id="x") for n in range(3)]
    result = add_messages(history, [RemoveMessage(id="x"), UserMessage("new", id="x")])
    assert [m.text for m in result] == ["new", "2"]


def test_remove_all_then_append_starts_a_new_history() -> None:
    history = [UserMessage("old", id="a")]
    result = add_messages(history, [RemoveMessage(id="*"), UserMessage("new", id="a")])
    assert [m.text for m in result] == ["new"]


def test_removing_an_unknown_id_says_which_and_leaves_the_history_alone() -> None:
    history = add_messages([], [UserMessage("kept", id="a")])
    with pytest.raises(InvalidInputError, match=r"RemoveMessage\(id='nope'\) names no message"):
        add_messages(history, [RemoveMessage(id="nope")])
    assert [m.text for m in history] == ["kept"]


def test_a_long_history_keeps_its_index_across_updates_and_stays_correct() -> None:
    history = add_messages([], [UserMessage(f"m{n}", id=f"id{n}") for n in range(600)])
    for step in range(50):
        history = add_messages(history, [AssistantMessage(f"r{step}", id=f"id{step * 7}")])
        history = add_messages(history, [UserMessage(f"tool {step}")])
    assert len(history) == 650
    assert history[7 * 49].text == "r49"
    assert history[-1].text == "tool 49"
    assert state._kept_index(history) is not None  # taken out: the next update builds anew
    assert state._kept_index(history) is None


@given(
    start=st.lists(messages, max_size=8),
    batches=updates,
    key=st.sampled_from(["a", "b", "c", "d", "zz"]),
)
def test_position_of_finds_the_first_message_with_the_id(
    start: list[Message], batches: list[list[Any]], key: str
) -> None:
    """From the index the reducer keeps (the last history's) or by a scan (the others')."""
    with index_kept_from(0, scan_below=0):
        seen = run_updates(add_messages, start, batches)
    for history in seen:
        if isinstance(history, Refused):
            continue
        expected = next((i for i, item in enumerate(history) if item.id == key), None)
        assert state.position_of(history, key) == expected
