"""State schemas as the engine reads them: each key's reducer, and the run-scoped keys
(``UntrackedValue``). A schema is read once per class."""

from __future__ import annotations

import typing
import weakref
from collections.abc import Callable
from typing import Any

from hookproof.errors import UsageError

__all__ = ["Reducer", "UntrackedValue", "annotations_of", "is_untracked", "keys_of", "replace"]

Reducer = Callable[[Any, Any], Any]


def replace(_current: Any, new: Any) -> Any:
    """The reducer of a key that declares none: the new value replaces the old."""
    return new


class UntrackedValue:
    """Marks a state key as run-scoped: ``Annotated[int, UntrackedValue]``. A thread's
    checkpoint never holds it, so every invoke (and every resume) starts without it, as
    with LangGraph's marker of the same name (which the engine also recognises)."""


def is_untracked(marker: Any) -> bool:
    """Whether ``Annotated`` metadata ``marker`` is hookproof's or LangGraph's
    ``UntrackedValue`` (the class or an instance; LangGraph's is recognised by name, so
    the engine never imports it)."""
    kind = marker if isinstance(marker, type) else type(marker)
    if kind is UntrackedValue:
        return True
    return kind.__name__ == "UntrackedValue" and kind.__module__.startswith("langgraph.")


# Each schema is read once: every middleware has one, and reading costs ~50us an agent build.
_Keys = tuple[dict[str, Reducer], frozenset[str]]  # reducers, untracked keys
_read: weakref.WeakKeyDictionary[type, _Keys] = weakref.WeakKeyDictionary()


def keys_of(schema: type | None) -> _Keys:
    if schema is None:
        return {}, frozenset()
    try:
        known = _read.get(schema)
    except TypeError:  # not a class (so no weak reference to it): read it each time
        return _read_keys(schema)
    if known is None:
        known = _read[schema] = _read_keys(schema)
    return dict(known[0]), known[1]


def annotations_of(schema: Any, what: str, fix: str) -> dict[str, Any]:
    """The resolved annotations of a state schema (``what`` names it in the error, ``fix``
    says how to make them readable)."""
    try:
        return typing.get_type_hints(schema, include_extras=True)
    except (NameError, TypeError) as error:
        problem = str(error).rstrip(".")
        raise UsageError(f"hookproof: cannot read {what}: {problem}. {fix}") from error


def _read_keys(schema: type) -> _Keys:
    hints = annotations_of(
        schema,
        f"the annotations of state schema {getattr(schema, '__name__', repr(schema))}",
        "Define it at module level with resolvable types.",
    )
    reducers = {key: _reducer_of(hint) for key, hint in hints.items()}
    untracked = frozenset(key for key, hint in hints.items() if _is_untracked_key(hint))
    return reducers, untracked


def _unqualified(hint: Any) -> Any:
    while typing.get_origin(hint) in _QUALIFIERS:
        hint = typing.get_args(hint)[0]
    return hint


def _is_untracked_key(hint: Any) -> bool:
    return any(map(is_untracked, getattr(_unqualified(hint), "__metadata__", ())))


# Required[...] and NotRequired[...] wrap a TypedDict key's Annotated type; ReadOnly too (3.13).
_QUALIFIERS = tuple(
    qualifier
    for qualifier in (typing.Required, typing.NotRequired, getattr(typing, "ReadOnly", None))
    if qualifier is not None
)


def _reducer_of(hint: Any) -> Reducer:
    metadata = getattr(_unqualified(hint), "__metadata__", ())
    # A class in the metadata is a marker (LangGraph's channel types), not a reducer.
    return next(
        (item for item in metadata if callable(item) and not isinstance(item, type)), replace
    )
