"""Conversions of LangChain messages that cannot change, made once per message.

LangChain messages are mutable, so a conversion is only kept for a message declared
unchanging: the bridge's locked views, which refuse edits. The one way such a view changes
(a node hook's edit, see the bridge's ``editable_messages``) forgets its conversion when the
edit is made and again when it is undone. Any other message is converted on every call.

A model is sent its whole history on every call: ``converted_all`` also keeps the last
list's conversions, so the next list that starts with the same unchanging messages (the
same objects) converts only the ones after them, without a lookup per message.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from operator import is_
from typing import Any

__all__ = ["converted_all", "converted_once", "forget_conversion", "mark_unchanging"]

_UNCONVERTED: Any = object()
# id(message) -> (a weak reference to the message, its conversion or _UNCONVERTED): an entry
# goes when its message does, so the memo holds no message alive.
_kept: dict[int, tuple[Any, Any]] = {}
# Bumped whenever an unchanging message changes: a kept prefix from before is stale.
_edits = [0]
# (edits when kept, the unchanging messages of the last list, their conversions)
_last_prefix: list[tuple[int, tuple[Any, ...], list[Any]]] = []


class _Held(weakref.ref):  # type: ignore[type-arg]
    """A weak reference to an unchanging message, with the id its entry is filed under."""

    __slots__ = ("key",)
    key: int


def _forget(held: _Held) -> None:
    entry = _kept.get(held.key)
    if entry is not None and entry[0] is held:
        _kept.pop(held.key, None)  # not del: another thread may forget it first


def mark_unchanging(message: Any) -> None:
    """Declare that ``message`` cannot change until ``forget_conversion(message)``."""
    held = _Held(message, _forget)
    held.key = id(message)
    _kept[held.key] = (held, _UNCONVERTED)


def forget_conversion(message: Any) -> None:
    """``message`` is changing: its conversion is no longer kept, nor made once."""
    _forget_prefixes()
    entry = _kept.get(id(message))
    if entry is not None and entry[0]() is message:
        _kept.pop(id(message), None)


def _forget_prefixes() -> None:
    _edits[0] += 1


def converted_once(message: Any, convert: Callable[[Any], Any]) -> Any:
    """``convert(message)``, made once for an unchanging message and kept."""
    entry = _kept.get(id(message))
    if entry is None or entry[0]() is not message:
        return convert(message)
    if entry[1] is _UNCONVERTED:
        entry = _kept[id(message)] = (entry[0], convert(message))
    return entry[1]


def converted_all(messages: Sequence[Any], convert: Callable[[Any], Any]) -> list[Any]:
    """``converted_once`` of each message; the leading messages the last call converted
    (the same unchanging objects, none edited since) are not looked up again."""
    edits = _edits[0]
    done = _kept_prefix(messages, edits)
    rest = messages[len(done) :]
    converted = [*done, *(converted_once(item, convert) for item in rest)]
    unchanging = len(done) + _unchanging_count(rest)
    _last_prefix[:] = [(edits, tuple(messages[:unchanging]), converted[:unchanging])]
    return converted


def _kept_prefix(messages: Sequence[Any], edits: int) -> list[Any]:
    found = _last_prefix[:]  # one slot, read at once: threads take turns at it
    if not found:
        return []
    kept_at, items, conversions = found[0]
    if kept_at != edits or len(items) > len(messages) or not all(map(is_, items, messages)):
        return []
    return conversions


def _unchanging_count(messages: Sequence[Any]) -> int:
    """How many of the leading ``messages`` are declared unchanging."""
    for count, item in enumerate(messages):
        entry = _kept.get(id(item))
        if entry is None or entry[0]() is not item:
            return count
    return len(messages)
