"""An agent with a framework's middleware gives each message without an id a deterministic
one (m1, m2, ... by place, skipping ids in use). The reducer keeps the ids in use between
updates instead of collecting them from the whole history each time: the ids it gives must
be the ones a reducer that collects them afresh gives, on every path (long histories,
updates that replace or remove, two updates of the same version).
"""

from __future__ import annotations

from typing import Any

import pytest

import hookproof.runtime._foreign as foreign
from hookproof._engine import add_messages
from hookproof.messages import AssistantMessage, RemoveMessage, ToolMessage, UserMessage
from hookproof.runtime._foreign import identified_messages


def _afresh(current: Any, new: Any) -> Any:
    """The reducer's rule, with the ids in use collected from the whole history each time."""
    items = list(new) if isinstance(new, list | tuple) else [new]
    if all(getattr(item, "id", None) is not None for item in items):
        return add_messages(current, new)
    current = current or ()
    used = {m.id for m in current} | {getattr(item, "id", None) for item in items}
    number, named = len(current), []
    for item in items:
        if item.id is None:
            number += 1
            while f"m{number}" in used:
                number += 1
            item = item.model_copy(update={"id": f"m{number}"})
            used.add(item.id)
        named.append(item)
    return add_messages(current, named)


def _turn(index: int) -> list[Any]:
    return [
        AssistantMessage(content=f"a{index}"),
        ToolMessage(content=f"t{index}", tool_call_id=f"c{index}", id=f"tool-{index}"),
    ]


UPDATES: list[Any] = [
    *[_turn(index) for index in range(30)],
    [UserMessage(content="again", id="m64")],  # an id a later message would be given
    [AssistantMessage(content="next")],
    [RemoveMessage(id="m63")],
    [UserMessage(content="after the removal")],
    [AssistantMessage(content="replaced", id="m3")],
    [AssistantMessage(content="x"), AssistantMessage(content="y")],
]


def _ids(reducer: Any, updates: list[Any]) -> list[str | None]:
    state: Any = [UserMessage(content="hi")]
    state = reducer((), state)
    for update in updates:
        state = reducer(state, update)
    return [message.id for message in state]


def test_the_kept_ids_give_the_ids_collected_afresh() -> None:
    assert _ids(identified_messages, UPDATES) == _ids(_afresh, UPDATES)


def test_two_updates_of_one_version_get_the_same_ids() -> None:
    base: Any = identified_messages((), [UserMessage(content="hi")])
    for index in range(40):
        base = identified_messages(base, _turn(index))

    first = identified_messages(base, [AssistantMessage(content="one")])
    second = identified_messages(base, [AssistantMessage(content="two")])

    assert first[-1].id == second[-1].id == _afresh(base, [AssistantMessage(content="o")])[-1].id


def test_the_comparison_catches_ids_kept_after_a_removal(monkeypatch: pytest.MonkeyPatch) -> None:
    def keeps_any(result: Any, current: Any, named: list[Any], known: set[Any]) -> None:
        known.update(getattr(message, "id", None) for message in named)
        foreign._last_ids[:] = [(result, known)]

    monkeypatch.setattr(foreign, "_keep_ids", keeps_any)

    assert _ids(identified_messages, UPDATES) != _ids(_afresh, UPDATES)


# Short histories take the plain path (new messages without ids, appended): ids in use are
# skipped, and the updates that carry the history past the length from which ids are kept
# hand the kept ids on as the general path does.
PLAIN_UPDATES: list[Any] = [
    [UserMessage(content="taken", id="m3")],
    [AssistantMessage(content="a")],
    [AssistantMessage(content="b"), AssistantMessage(content="c")],
    *[[AssistantMessage(content=f"p{index}")] for index in range(35)],
    [UserMessage(content="late", id="m45")],
    *[[AssistantMessage(content=f"q{index}")] for index in range(4)],
]


def test_plain_updates_of_short_histories_give_the_ids_collected_afresh() -> None:
    assert _ids(identified_messages, PLAIN_UPDATES) == _ids(_afresh, PLAIN_UPDATES)


def test_the_comparison_catches_a_plain_path_that_reuses_an_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def numbered_blindly(current: Any, items: list[Any]) -> list[Any]:
        start = len(current)
        return [
            item.model_copy(update={"id": f"m{start + offset}"})
            for offset, item in enumerate(items, 1)
        ]

    monkeypatch.setattr(foreign, "_numbered", numbered_blindly)

    assert _ids(identified_messages, PLAIN_UPDATES) != _ids(_afresh, PLAIN_UPDATES)
