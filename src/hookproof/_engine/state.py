"""Agent state: a dict of frozen values, changed only through reducers."""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hookproof._frozen import FrozenDict, FrozenList, freeze
from hookproof.errors import InvalidInputError, UsageError
from hookproof.messages import Message, RemoveMessage, coerce_message

__all__ = ["Reducer", "StateSpec", "add_messages"]

Reducer = Callable[[Any, Any], Any]


def add_messages(current: Sequence[Message] | None, new: Any) -> FrozenList[Message]:
    """Append messages; a message with an existing id replaces it; RemoveMessage removes."""
    result = list(current or ())
    items = new if isinstance(new, list | tuple) else [new]
    for index, item in enumerate(items):
        message = (
            item
            if isinstance(item, Message)
            else coerce_message(item, where=f"messages update [{index}]")
        )
        if isinstance(message, RemoveMessage):
            result = _remove(result, message.id)
            continue
        position = _position(result, message.id)
        if position is None:
            result.append(message)
        else:
            result[position] = message
    return FrozenList(result)


def _position(messages: list[Message], message_id: str | None) -> int | None:
    if message_id is None:
        return None
    for index, message in enumerate(messages):
        if message.id == message_id:
            return index
    return None


def _remove(messages: list[Message], message_id: str) -> list[Message]:
    if message_id == RemoveMessage.ALL:
        return []
    position = _position(messages, message_id)
    if position is None:
        raise InvalidInputError(
            f"hookproof: RemoveMessage(id={message_id!r}) names no message in state. Only "
            "messages with an id can be removed; check the id you pass."
        )
    return messages[:position] + messages[position + 1 :]


def _replace(_current: Any, new: Any) -> Any:
    return new


def _reducers_of(schema: type | None) -> dict[str, Reducer]:
    if schema is None:
        return {}
    try:
        hints = typing.get_type_hints(schema, include_extras=True)
    except (NameError, TypeError) as error:
        raise UsageError(
            f"hookproof: cannot read the annotations of state schema {schema.__name__}: "
            f"{error}. Define it at module level with resolvable types."
        ) from error
    reducers: dict[str, Reducer] = {}
    for key, hint in hints.items():
        metadata = getattr(hint, "__metadata__", ())
        reducer = next((item for item in metadata if callable(item)), _replace)
        reducers[key] = reducer
    return reducers


class StateSpec:
    """The state keys an agent knows and how each one is updated."""

    def __init__(
        self, schemas: Sequence[type | None], *, messages_reducer: Reducer = add_messages
    ) -> None:
        self.reducers: dict[str, Reducer] = {}
        for schema in schemas:
            self.reducers.update(_reducers_of(schema))
        self.strict = any(schema is not None for schema in schemas)
        self.reducers["messages"] = messages_reducer

    def apply(self, state: dict[str, Any], update: Mapping[str, Any], source: str) -> list[str]:
        """Apply an update in place on the run's private state; returns the keys written.

        The first write of a key sets it as given; later writes go through its reducer.
        """
        for key, value in update.items():
            reducer = self.reducers.get(key)
            if reducer is None:
                if self.strict:
                    raise InvalidInputError(
                        f"hookproof: {source} wrote state key {key!r}, which no state schema "
                        f"declares (known: {sorted(self.reducers)}). Declare it in "
                        "state_schema= or in the middleware's state_schema."
                    )
                reducer = _replace
            first_write = key not in state and key != "messages"
            state[key] = freeze(value if first_write else reducer(state[key], value))
        return list(update)

    def snapshot(self, state: dict[str, Any]) -> FrozenDict:
        return FrozenDict(state)
