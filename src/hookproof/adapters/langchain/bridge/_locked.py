"""Locked values: lists and mappings whose in-place edits raise ImmutableError, as the
bridge hands them to LangChain hooks (a hook that edits what it was given must not change
what other hooks see)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

from hookproof._support.frozen import FrozenDict
from hookproof.errors import ImmutableError

__all__ = ["LockedList", "lock", "refuse_edit", "thaw_view"]


def refuse_edit(self: object, *_args: object, **_kwargs: object) -> NoReturn:
    raise ImmutableError(
        f"hookproof: this {type(self).__name__} is shared with other hooks, so changing it in "
        "place would change what they see. Build a new value instead: request.override(...), "
        "message.model_copy(update=...), [*messages, new] or {**mapping, key: value}."
    )


class LockedList(list[Any]):
    """A list (so LangChain's isinstance checks hold) whose mutators raise ImmutableError."""

    __slots__ = ()
    append = extend = insert = remove = pop = clear = sort = reverse = refuse_edit
    __setitem__ = __delitem__ = __iadd__ = __imul__ = refuse_edit

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        import copy

        return [copy.deepcopy(item, memo) for item in self]

    def __reduce_ex__(self, _protocol: object) -> tuple[Any, ...]:
        return (list, (list(self),))


def lock(value: Any) -> Any:
    """``value`` with every list and dict inside it locked (tuples become locked lists, as
    LangChain holds lists where hookproof holds tuples)."""
    kind = type(value)
    if kind in _SCALARS:  # the common exact types first; their subclasses take the long way
        return value
    if kind is dict or kind is FrozenDict:
        if not value:
            return FrozenDict()
        return FrozenDict({key: lock(item) for key, item in value.items()})
    if kind is list or kind is tuple or kind is LockedList:
        return LockedList(lock(item) for item in value)
    if isinstance(value, str | bytes | int | float | type(None)):
        return value
    if isinstance(value, Mapping):
        return FrozenDict({key: lock(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return LockedList(lock(item) for item in value)
    return value


_SCALARS = frozenset({str, bytes, int, float, bool, type(None)})


def thaw_view(value: Any) -> Any:
    kind = type(value)
    if kind in _SCALARS:
        return value
    if isinstance(value, Mapping):
        return {key: thaw_view(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [thaw_view(item) for item in value]
    return value
