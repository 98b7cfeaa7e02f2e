"""Contexts for ``strategies.contexts()``, drawn straight from hypothesis' choices.

What is drawn is what hypothesis' combinators give (``combinator_contexts`` writes it with
them): one kind of context in equal shares, then, field by field, one branch of the field's
trusted and untrusted values, each choice a bounded integer as hypothesis' own ``one_of`` and
``sampled_from`` draw it, in the same order. So a failing example shrinks to the same minimal
context. The combinators cost a span per layer (``one_of`` draws two), which made a context
three times as dear to hypothesis as an integer; drawing the choices directly costs one.
Malformed dicts are the exception: one choice per field (absent, or a kind of JSON scalar)
in the field names' order, where ``st.dictionaries`` draws a continue flag, a key and retries
duplicate keys.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, get_args, get_origin

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from hookproof.errors import UsageError

if TYPE_CHECKING:
    from hypothesis.internal.conjecture.data import ConjectureData

__all__ = [
    "DIRECT",
    "HOSTILE",
    "JSON_SCALARS",
    "TEXT",
    "combinator_contexts",
    "context_fields",
    "direct_contexts",
    "forged",
    "trusted_values",
]

TEXT = st.text(alphabet=st.characters(blacklist_categories=["Cs", "Cc"]), max_size=20)
JSON_SCALARS = st.none() | st.booleans() | st.integers(-5, 5) | TEXT
HOSTILE = ("", "ADMIN", "root", "admin ", "*", "guest\n", "null", "None", "🙂")
_INTEGERS = st.integers()

Draw = Callable[["ConjectureData"], Any]


def _can_draw_directly() -> bool:
    """Whether this hypothesis draws bounded integers as the direct drawing asks (6.104 on
    does); without it, contexts() keeps to the combinators."""
    from hypothesis.internal.conjecture.data import ConjectureData

    return callable(getattr(ConjectureData, "draw_integer", None))


DIRECT = _can_draw_directly()


def context_fields(context_type: type) -> dict[str, Any]:
    """The dataclass's fields and their annotations, in declaration order."""
    if not dataclasses.is_dataclass(context_type):
        raise UsageError(
            f"hookproof: contexts() builds dataclass contexts; {context_type!r} is not one. "
            "Pass your frozen dataclass, or build contexts with hypothesis yourself."
        )
    hints = typing.get_type_hints(context_type)
    return {item.name: hints[item.name] for item in dataclasses.fields(context_type)}


def trusted_values(annotation: Any) -> st.SearchStrategy[Any]:
    """The values a field may legitimately hold (Literal choices, or the annotated type)."""
    if get_origin(annotation) is Literal:
        return st.sampled_from(get_args(annotation))
    return st.from_type(annotation)


def forged(context_type: type, values: Mapping[str, Any]) -> Any:
    """An instance carrying values its type would never be built with (frozen included)."""
    instance: Any = object.__new__(context_type)
    for name, value in values.items():
        object.__setattr__(instance, name, value)
    return instance


def _legal(annotation: Any) -> tuple[Any, ...]:
    return get_args(annotation) if get_origin(annotation) is Literal else ()


def _out_of_domain(fields: Mapping[str, Any], values: Mapping[str, Any]) -> bool:
    """At least one Literal field holds a value outside its choices (or no field is Literal)."""
    literal = {n: t for n, t in fields.items() if get_origin(t) is Literal}
    return not literal or any(values[n] not in get_args(t) for n, t in literal.items())


def _strange(annotation: Any) -> st.SearchStrategy[str]:
    legal = set(_legal(annotation))
    return TEXT.filter(lambda value: value not in legal)


def _hostile(annotation: Any) -> list[Any]:
    legal = set(_legal(annotation))
    return [value for value in HOSTILE if value not in legal]


# -- the reference: hypothesis' combinators -------------------------------------------------


def _good(context_type: type, fields: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    values = st.fixed_dictionaries({n: trusted_values(t) for n, t in fields.items()})
    return values.map(lambda drawn: context_type(**drawn))


def _bad_fields(context_type: type, fields: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """Instances with at least one field out of its domain, each field from ``one_of(trusted,
    strange text, None, integers, hostile)``."""
    values = {
        n: st.one_of(
            trusted_values(t), _strange(t), st.none(), _INTEGERS, st.sampled_from(_hostile(t))
        )
        for n, t in fields.items()
    }
    return (
        st.fixed_dictionaries(values)
        .filter(lambda drawn: _out_of_domain(fields, drawn))
        .map(lambda drawn: forged(context_type, drawn))
    )


def combinator_contexts(context_type: type, trusted: bool | None) -> st.SearchStrategy[Any]:
    """``contexts()`` written with hypothesis' combinators alone: the distribution the direct
    drawing keeps, and what runs where hypothesis cannot be drawn from directly."""
    fields = context_fields(context_type)
    good = _good(context_type, fields)
    if trusted:
        return good
    malformed = st.one_of(
        st.none(), st.dictionaries(st.sampled_from(sorted(fields)), JSON_SCALARS), TEXT, _INTEGERS
    )
    hostile = st.one_of(_bad_fields(context_type, fields), malformed)
    return hostile if trusted is False else st.one_of(good, hostile)


# -- drawing directly -------------------------------------------------------------------------


def _index(data: ConjectureData, size: int) -> int:
    """A choice among ``size`` (none at all for one), as ``one_of`` and ``sampled_from``."""
    return data.draw_integer(0, size - 1) if size > 1 else 0


def _drawn(strategy: st.SearchStrategy[Any]) -> Draw:
    return lambda data: data.draw(strategy)


def _none(data: ConjectureData) -> None:
    return None


# A malformed dict's value for one field: absent, or one of JSON_SCALARS' kinds.
_ABSENT = object()
_SCALARS: tuple[Draw, ...] = (
    lambda data: _ABSENT,
    _none,
    _drawn(st.booleans()),
    _drawn(st.integers(-5, 5)),
    _drawn(TEXT),
)


def _malformed_dict(names: Sequence[str]) -> Draw:
    def draw(data: ConjectureData) -> dict[str, Any]:
        values = {name: _SCALARS[_index(data, len(_SCALARS))](data) for name in names}
        return {name: value for name, value in values.items() if value is not _ABSENT}

    return draw


class _DirectContexts(SearchStrategy[Any]):
    """One choice of kind, then the kind's own draws."""

    def __init__(self, kinds: Sequence[Draw], shown: str) -> None:
        super().__init__()
        self.kinds, self.shown = tuple(kinds), shown

    def do_draw(self, data: ConjectureData) -> Any:
        return self.kinds[_index(data, len(self.kinds))](data)

    def __repr__(self) -> str:
        return self.shown


def direct_contexts(context_type: type, trusted: bool | None) -> st.SearchStrategy[Any]:
    """``combinator_contexts``' distribution, its choice of kind and its malformed dicts
    drawn directly."""
    fields = context_fields(context_type)
    good = _drawn(_good(context_type, fields))
    hostile = [_drawn(_bad_fields(context_type, fields)), _none, _malformed_dict(sorted(fields))]
    hostile += [_drawn(TEXT), _drawn(_INTEGERS)]
    kinds = [good] if trusted else hostile if trusted is False else [good, *hostile]
    return _DirectContexts(kinds, f"contexts({context_type.__name__}, trusted={trusted!r})")
