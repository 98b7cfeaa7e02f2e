"""Deeply immutable containers whose mutators fail with a message that says what to do."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, NoReturn, TypeVar

from hookproof._support.history import History
from hookproof.errors import ImmutableError

T = TypeVar("T")


def _refusing(message: str) -> Callable[..., NoReturn]:
    """A mutator that refuses every call with ImmutableError(message)."""

    def refuse(self: object, *_args: object, **_kwargs: object) -> NoReturn:
        raise ImmutableError(message)

    return refuse


class FrozenList(tuple[T, ...], Generic[T]):
    """A tuple that answers list mutators with ImmutableError instead of AttributeError."""

    __slots__ = ()

    _refuse = _refusing(
        "hookproof: this sequence is immutable, so changing it in place would silently "
        "change the request other layers see. Build a new list and pass it to "
        "request.override(...) instead."
    )

    append = extend = insert = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = _refuse

    def __eq__(self, other: object) -> bool:
        if isinstance(other, list):
            return tuple.__eq__(self, tuple(other))
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__

    def __repr__(self) -> str:
        return f"[{', '.join(repr(item) for item in self)}]"


class FrozenDict(dict[str, Any]):
    """A dict whose mutators raise ImmutableError; hashable by content."""

    __slots__ = ()

    _refuse = _refusing(
        "hookproof: this mapping is immutable, so changing it in place would silently "
        "change what other layers see. Build a new dict ({**old, key: value}) and pass "
        "it to override(...) or return it as a state update."
    )

    __setitem__ = __delitem__ = update = setdefault = pop = popitem = clear = _refuse
    __ior__ = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted((key, _hashable(value)) for key, value in self.items())))

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, _memo: dict[int, Any]) -> FrozenDict:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))

    def thaw(self) -> dict[str, Any]:
        """A plain, deep, mutable copy."""
        return {key: thaw(value) for key, value in self.items()}


def _hashable(value: Any) -> Any:
    if isinstance(value, dict):
        return FrozenDict(value).__hash__()
    if isinstance(value, list):
        return tuple(_hashable(item) for item in value)
    return value


_ALREADY_FROZEN = (FrozenDict, FrozenList, History, str, bytes, int, float, bool, type(None))
# A set lookup beats isinstance on most leaves; hot paths test ``type(v) in FROZEN_TYPES``
# before they call freeze (which returns such a value as it is).
FROZEN_TYPES = _EXACTLY_FROZEN = frozenset(_ALREADY_FROZEN)


def freeze(value: Any) -> Any:
    """Return value with every dict, list and tuple inside it made immutable."""
    kind = type(value)
    if kind in _EXACTLY_FROZEN:
        return value
    if kind is dict:  # before the isinstance tests below, which call the ABCs' Python code
        return FrozenDict({str(key): freeze(item) for key, item in value.items()})
    if kind is list or kind is tuple:
        return FrozenList([freeze(item) for item in value])
    if isinstance(value, _ALREADY_FROZEN):
        return value
    if isinstance(value, Mapping):
        if type(value) is not dict and getattr(value, "__hookproof_frozen__", False):
            return value  # an immutable value that is also a Mapping (a ToolCall) stays itself
        return FrozenDict({str(key): freeze(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return FrozenList([freeze(item) for item in value])
    return value


def freeze_list(values: Iterable[T]) -> FrozenList[T]:
    """A FrozenList of the given values (the values themselves are kept as they are)."""
    return values if isinstance(values, FrozenList) else FrozenList(values)


def thaw(value: Any) -> Any:
    """Deep mutable copy of a frozen structure (for JSON output and user edits)."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, FrozenList | History | list):
        return [thaw(item) for item in value]
    return value
