"""The values ``contexts()`` draws from, compiled once per context type: per field, its legal
values and a catalogue of hostile ones; and malformed contexts of other types.

Every catalogue is a fixed tuple listing the simplest value first (a shrunk counterexample
ends on it); only a field that is not a Literal draws its trusted values from its type.
"""

from __future__ import annotations

import dataclasses
import enum
import itertools
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal, get_args, get_origin

from hypothesis import strategies as st

__all__ = [
    "Draw",
    "Field",
    "LookAlike",
    "Wildcard",
    "compiled",
    "is_legal",
    "json_scalars",
    "malformed_values",
    "resolved",
    "text",
    "trusted_values",
]

Draw = Callable[[st.SearchStrategy[Any]], Any]
text = st.text(alphabet=st.characters(blacklist_categories=["Cs", "Cc"]), max_size=20)
json_scalars = st.none() | st.booleans() | st.integers(-5, 5) | text
# Values no catalogue derives from a field's choices; fixed, so that a context is one choice.
_STRANGERS = (
    "root",
    "*",
    "null",
    "None",
    "🙂",
    "\u200b",
    "ǅ",
    "x" * 64,
    -1,
    1,
    2,
    2**31,
    -(2**63),
)
_LOOK_ALIKE_LIMIT = 32  # dicts and objects mimicking trusted contexts, per context type


class Wildcard:
    """An option that draws a fresh value from ``strategy`` instead of being one."""

    def __init__(self, name: str, strategy: st.SearchStrategy[Any]) -> None:
        self.name, self.strategy = name, strategy

    def __repr__(self) -> str:
        return self.name


@dataclass(frozen=True)
class LookAlike:
    """A dict or an object of another type carrying a trusted context's field values (built
    fresh for each draw: the code under test may change it)."""

    values: tuple[tuple[str, Any], ...]
    as_object: bool

    def build(self) -> Any:
        values = dict(self.values)
        return types.SimpleNamespace(**values) if self.as_object else values


@dataclass(frozen=True)
class Field:
    """One field: its Literal ``choices`` (``()`` for another annotation), its ``legal``
    options (the choices, or a wildcard drawing from the annotated type), its ``hostile``
    options, ``everything`` (legal first, then hostile) as a strategy, and ``trusted``."""

    name: str
    choices: tuple[Any, ...]
    legal: tuple[Any, ...]
    hostile: tuple[Any, ...]
    everything: st.SearchStrategy[Any]
    trusted: st.SearchStrategy[Any]


def trusted_values(annotation: Any) -> st.SearchStrategy[Any]:
    """The values a field may legitimately hold (Literal choices, or the annotated type)."""
    if get_origin(annotation) is Literal:
        return st.sampled_from(get_args(annotation))
    return st.from_type(annotation)


@cache
def compiled(context_type: type) -> tuple[Field, ...]:
    """The fields of ``context_type`` (a dataclass), in declaration order."""
    hints = typing.get_type_hints(context_type)
    return tuple(_field(item.name, hints[item.name]) for item in dataclasses.fields(context_type))


def _field(name: str, annotation: Any) -> Field:
    choices = tuple(get_args(annotation)) if get_origin(annotation) is Literal else ()
    trusted = trusted_values(annotation)
    legal = choices or (Wildcard("a trusted value", trusted),)
    hostile = _hostile_values(choices)
    return Field(name, choices, legal, hostile, st.sampled_from((*legal, *hostile)), trusted)


def is_legal(value: Any, choices: tuple[Any, ...]) -> bool:
    """``value`` is one of ``choices``, of the same type (``1`` is not ``True``)."""
    return any(type(value) is type(ok) and value == ok for ok in choices)


def _hostile_values(choices: tuple[Any, ...]) -> tuple[Any, ...]:
    """Simplest first: missing and empty values, look-alikes of each legal value, then
    strangers."""
    look_alikes = [variant for value in choices for variant in _look_alikes(value)]
    unique: dict[tuple[type, Any], Any] = {}
    for value in (None, "", 0, *look_alikes, *_STRANGERS):
        if not is_legal(value, choices):
            unique.setdefault((type(value), value), value)
    return tuple(unique.values())


def _look_alikes(value: Any) -> tuple[Any, ...]:
    """Values a careless comparison takes for ``value``: another case, padding, a suffix; a
    number's neighbours, its text and its truth value; an enum member's value and name."""
    if isinstance(value, enum.Enum):
        return (value.value, value.name)
    if isinstance(value, bool):
        return (int(value), str(value))
    if isinstance(value, int):
        return (value + 1, value - 1, str(value), bool(value))
    if isinstance(value, str):
        cases = (value.upper(), value.lower(), value.capitalize())
        return (*cases, value + " ", " " + value, value + "\n", value + "x")
    return ()


def malformed_values(fields: Sequence[Field]) -> tuple[Any, ...]:
    """Simplest first: None, empty values, a dict of the field names, the legal values bare,
    then dicts and objects of another type that look like trusted contexts, then strangers."""
    literal = [f for f in fields if f.choices]
    bare = {(type(v), v): v for f in literal for v in f.choices if isinstance(v, str | int)}
    rows = itertools.product(*[[(f.name, v) for v in f.choices] for f in literal])
    look_alikes = [
        LookAlike(row, as_object)
        for row in itertools.islice(rows, _LOOK_ALIKE_LIMIT)
        if row
        for as_object in (False, True)
    ]
    nameless = LookAlike(tuple((f.name, None) for f in fields), as_object=False)
    empty = LookAlike((), as_object=False)
    return (None, "", 0, empty, nameless, *bare.values(), *look_alikes, *_STRANGERS)


def resolved(draw: Draw, option: Any) -> Any:
    """The option itself, or what it draws or builds."""
    if isinstance(option, Wildcard):
        return draw(option.strategy)
    if isinstance(option, LookAlike):
        return option.build()
    return option
