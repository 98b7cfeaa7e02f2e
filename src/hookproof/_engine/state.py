"""Agent state: a dict of frozen values, changed only through reducers."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hookproof._engine.schemas import (
    Reducer,
    UntrackedValue,
    annotations_of,
    is_untracked,
    keys_of,
    replace,
)
from hookproof._support.frozen import FROZEN_TYPES, FrozenDict, freeze
from hookproof._support.history import History
from hookproof.errors import InvalidInputError, InvalidUpdateError
from hookproof.messages import (
    AssistantMessage,
    Message,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
    coerce_message,
)

__all__ = [
    "KEEP_INDEX_FROM",
    "KEPT_INDEXES",
    "MESSAGE_TYPES",
    "Reducer",
    "StateSpec",
    "UntrackedValue",
    "add_messages",
    "annotations_of",
    "carry_index",
    "is_untracked",
    "position_of",
]


def add_messages(current: Sequence[Message] | None, new: Any) -> History[Message]:
    """Append messages; a message with an existing id replaces it; RemoveMessage removes.

    The result is a History: appending to the newest version of a history shares its
    storage, so an update costs the messages it adds, not the length of the history.
    """
    current = () if current is None else current  # not ``or``: a History's len is a call
    items = new if isinstance(new, list | tuple | History) else [new]
    for item in items:  # the engine's own steps add messages without ids: nothing to look up
        if (type(item) not in _MESSAGE_TYPES and not isinstance(item, Message)) or (
            item.id is not None
        ):
            break
    else:  # shared storage; a long history's id index carries over (no id is added)
        start = current if type(current) is History else History(current)
        result = start.extended(items)
        if _kept and len(current) >= _KEEP_INDEX_FROM:  # no index kept: none to carry over
            carry_index(current, result)
        return result
    history = _History.resume(current)
    for index, item in enumerate(items):
        message = (
            item
            if isinstance(item, Message)
            else coerce_message(item, where=f"messages update [{index}]")
        )
        if isinstance(message, RemoveMessage):
            history.remove(message.id)
        else:
            history.put(message)
    return history.finish()


# The message classes, tested by type before isinstance: pydantic's metaclass is an ABC, so
# isinstance against the Message base is a Python-level call for every subclass instance.
MESSAGE_TYPES = _MESSAGE_TYPES = frozenset(
    {AssistantMessage, ToolMessage, UserMessage, SystemMessage}
)


def carry_index(current: Sequence[Message], result: History[Message]) -> None:
    """``result`` is ``current`` and then messages without ids: ``current``'s kept id index
    holds for it unchanged, since no message moves and no id is added."""
    kept = _kept_index(current)
    if kept is not None:
        _keep_index(result, kept)


def _joined(head: Sequence[Message], tail: Sequence[Message]) -> History[Message]:
    start = head if type(head) is History else History(head)
    return start.extended(tail)


# Histories at least this long keep their id index between updates (see _History.finish);
# shorter than _SCAN_BELOW, a lookup scans, which is cheaper than building an index.
KEEP_INDEX_FROM = _KEEP_INDEX_FROM = 256
_SCAN_BELOW = 16
_KEPT_MAX = 16


class _History:
    """One update's working copy of a history, with an index by id built when first needed.

    The index points each id at the position of its first message, and ``later`` at the
    positions of the rest when ids repeat, so every lookup is O(1) where a scan was O(n).
    Until a message is replaced or removed, the history is ``base`` followed by ``added``
    (copied once, at the end); after, ``slots`` is its mutable copy. Removed messages leave
    a hole until ``finish``, so positions never shift mid-update.
    """

    __slots__ = ("added", "base", "first", "holes", "later", "slots")

    def __init__(self, base: Sequence[Message]) -> None:
        self.base = base
        self.added: list[Message] = []
        self.slots: list[Message | None] | None = None
        self.first: dict[str, int] | None = None
        self.later: dict[str, deque[int]] = {}
        self.holes = 0

    @classmethod
    def resume(cls, current: Sequence[Message]) -> _History:
        history = cls(current)
        if len(current) >= _KEEP_INDEX_FROM:
            history._adopt(_kept_index(current))
        return history

    def _adopt(self, kept: _Index | None) -> None:
        if kept is not None:
            self.first, self.later = kept

    def _mutable(self) -> list[Message | None]:
        if self.slots is None:
            self.slots = [*self.base, *self.added]
        return self.slots

    def _messages(self) -> Sequence[Message | None]:
        return self.slots if self.slots is not None else [*self.base, *self.added]

    def _length(self) -> int:
        return len(self.slots) if self.slots is not None else len(self.base) + len(self.added)

    def _index(self) -> dict[str, int]:
        if self.first is None:
            self.first, self.later = _index_of(self._messages())
        return self.first

    def _find(self, key: str) -> int | None:
        if self.first is None and self._length() < _SCAN_BELOW:  # no holes before an index
            for position, item in enumerate(self._messages()):
                if _id(item) == key:
                    return position
            return None
        return self._index().get(key)

    def put(self, message: Message) -> None:
        key = message.id
        position = None if key is None else self._find(key)
        if position is not None:
            self._mutable()[position] = message
            return
        if key is not None and self.first is not None:
            self.first[key] = self._length()
        if self.slots is None:
            self.added.append(message)
        else:
            self.slots.append(message)

    def remove(self, key: str) -> None:
        if key == RemoveMessage.ALL:
            self.base, self.added = (), []
            self.slots, self.first, self.later, self.holes = None, {}, {}, 0
            return
        position = self._index().pop(key, None)
        if position is None:
            raise InvalidInputError(
                f"hookproof: RemoveMessage(id={key!r}) names no message in state. Only "
                "messages with an id can be removed; check the id you pass."
            )
        self._mutable()[position] = None
        self.holes += 1
        waiting = self.later.get(key)
        if waiting:
            self._index()[key] = waiting.popleft()

    def finish(self) -> History[Message]:
        if self.holes:
            return History([message for message in self._mutable() if message is not None])
        result: History[Message] = (
            History(self.slots)  # type: ignore[arg-type]
            if self.slots is not None
            else _joined(self.base, self.added)
        )
        if self.first is not None and len(result) >= _KEEP_INDEX_FROM:
            _keep_index(result, (self.first, self.later))
        return result


_Index = tuple[dict[str, int], dict[str, deque[int]]]


def _id(message: Message | None) -> str | None:
    return None if message is None else message.id


def _index_of(slots: Sequence[Message | None]) -> _Index:
    ids = [None if message is None else message.id for message in slots]
    first = dict(zip(reversed(ids), range(len(ids) - 1, -1, -1), strict=True))
    first.pop(None, None)
    later: dict[str, deque[int]] = {}
    if len(first) < len(ids) - ids.count(None):  # some id repeats: remember where
        for position, key in enumerate(ids):
            if key is not None and first[key] != position:
                later.setdefault(key, deque()).append(position)
    return first, later  # type: ignore[return-value]


# A history's index, kept for the next update of that same history object. An entry is
# taken out when used and a new one stored for the result, so an index is never shared:
# an update of an older history, or two updates of one history, build their own.
KEPT_INDEXES = _kept = dict[int, tuple[History[Message], _Index]]()
_kept_lock = threading.Lock()


def _kept_index(history: Sequence[Message]) -> _Index | None:
    with _kept_lock:
        entry = _kept.pop(id(history), None)
    return entry[1] if entry is not None and entry[0] is history else None


def _keep_index(history: History[Message], index: _Index) -> None:
    with _kept_lock:
        _kept[id(history)] = (history, index)
        while len(_kept) > _KEPT_MAX:
            del _kept[next(iter(_kept))]


def position_of(history: Sequence[Message], key: str) -> int | None:
    """Where the first message with id ``key`` is in ``history``: read from the index the
    reducer keeps for a long history (O(1)), else found by a scan."""
    with _kept_lock:  # an index is only changed after it is taken out, under this lock
        entry = _kept.get(id(history))
        if entry is not None and entry[0] is history:
            return entry[1][0].get(key)
    return next((place for place, item in enumerate(history) if item.id == key), None)


# A node hook's jump_to is read by the loop and never stored, whichever schema declares it.
_LOOP_KEYS = frozenset({"jump_to"})


class StateSpec:
    """The state keys an agent knows and how each one is updated.

    ``base`` declares the keys every agent of a dialect has (LangChain: ``messages`` and
    ``structured_response``). An agent is strict about unknown keys when a schema declares
    a key of its own beyond those: a schema that only repeats the base (a middleware's
    default) leaves it open.
    """

    def __init__(
        self,
        schemas: Sequence[type | None],
        *,
        messages_reducer: Reducer = add_messages,
        base: type | None = None,
        append: Callable[[Any, list[Any]], Any] | None = None,
    ) -> None:
        self.reducers, self.untracked = keys_of(base)
        self.base = frozenset({*self.reducers, "messages"}) | _LOOP_KEYS
        for schema in schemas:
            reducers, untracked = keys_of(schema)
            self.reducers.update(reducers)
            self.untracked |= untracked
        self.reducers["messages"] = messages_reducer
        # add_messages' common case (messages without ids appended) is inlined in Run.update.
        self.appends = messages_reducer is add_messages
        # Another reducer's own append, for Run.append_messages: what it gives for a list of
        # messages, frozen (a dialect's reducer whose common case is an append).
        self.append = append
        self.strict = any(key not in self.base for key in self.reducers)
        # Keys written as given: a second write in one step would make the order decide.
        self.single_write = (
            frozenset(key for key, reducer in self.reducers.items() if reducer is replace)
            - _LOOP_KEYS
        )

    def claim(self, written: dict[str, str], update: Mapping[str, Any], source: str) -> None:
        """Record that ``source`` writes ``update`` in the current step, whose writes so far
        are ``written`` (key -> writer); refuse a second write of a key without a reducer,
        as LangGraph refuses it."""
        for key in update:
            if key not in self.single_write:
                continue
            if key in written:
                raise InvalidUpdateError(
                    f"hookproof: state key {key!r} was written twice in one step, by "
                    f"{written[key]} and by {source}, and it has no reducer, so the order "
                    "alone would decide which value stays (LangGraph refuses it the same "
                    "way). Give the key a reducer in its state schema, e.g. "
                    "Annotated[list, operator.add], or write it from one place per step."
                )
            written[key] = source

    def apply(
        self, state: dict[str, Any], update: Mapping[str, Any], source: str, owner: str | None
    ) -> tuple[str, ...]:
        """Apply an update in place on the run's private state; returns the keys written.
        ``owner`` wrote it (None: the engine's step ``source``).

        The first write of a key sets it as given; later writes go through its reducer.
        """
        reducers = self.reducers
        for key, value in update.items():
            reducer = reducers.get(key)
            if reducer is None:
                if self.strict:
                    raise self._undeclared(key, f"{owner}.{source}" if owner else source)
                reducer = replace
            if reducer is replace or (key not in state and key != "messages"):
                written = value  # a first write, or a key without reducer: as given
            else:
                written = reducer(state[key], value)
            state[key] = written if type(written) in FROZEN_TYPES else freeze(written)
        return tuple(update)

    def _undeclared(self, key: str, source: str) -> InvalidInputError:
        declared = sorted(k for k in self.reducers if k not in self.base or k == "messages")
        always = sorted(k for k in self.reducers if k in self.base and k != "messages")
        also = f"; every agent also has {always}" if always else ""
        return InvalidInputError(
            f"hookproof: {source} wrote state key {key!r}, which no state schema declares "
            f"(known: {declared}{also}). Declare it in state_schema= or in the middleware's "
            "state_schema."
        )

    def snapshot(self, state: dict[str, Any]) -> FrozenDict:
        return FrozenDict(state)

    def tracked(self, state: FrozenDict) -> FrozenDict:
        """What a checkpoint keeps of ``state``: all but the run-scoped keys."""
        if not self.untracked.intersection(state):
            return state
        return FrozenDict({k: v for k, v in state.items() if k not in self.untracked})
