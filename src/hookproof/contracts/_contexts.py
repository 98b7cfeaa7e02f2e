"""Trusted and hostile contexts of a dataclass in few draws: one ``sampled_from`` chooses the
form and the hostile value at once (a malformed context, a forged instance with one Literal
field out of its choices and, when they are few, the other fields' legal values, or one with
every field drawn from everything); at most one more draw gives the other fields. Few draws
keep hypothesis' own cost per example near that of a bare ``integers()``, and each choice
shrinks towards the simplest value of its catalogue."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from hookproof.contracts._catalogues import (
    Draw,
    Field,
    compiled,
    malformed_values,
    resolved,
    trusted_values,
)
from hookproof.errors import UsageError

__all__ = ["contexts", "forged", "trusted_values"]

_MALFORMED, _EVERY_FIELD = -2, -1
_SIMPLE_REPEATS = 4
_ROWS_LIMIT = 4096  # legal rows of the other fields sampled at once; beyond, one draw each
_INLINE_ROWS = 8  # so few rows ride along in the first draw


def forged(context_type: type, values: Mapping[str, Any]) -> Any:
    """An instance carrying values its type would never be built with (frozen included)."""
    instance: Any = object.__new__(context_type)
    for name, value in values.items():
        object.__setattr__(instance, name, value)
    return instance


def contexts(context_type: type, *, trusted: bool | None = None) -> st.SearchStrategy[Any]:
    """Contexts of ``context_type``: trusted ones (``trusted=True``), hostile ones
    (``False``: out-of-domain field values, None, other types), or both (``None``)."""
    fields = compiled(_checked(context_type))
    values = st.fixed_dictionaries({f.name: _legal_strategy(f) for f in fields})
    good = values.map(lambda chosen: context_type(**chosen))
    if trusted:
        return good
    hostile = _hostile_contexts(context_type, fields)
    return hostile if trusted is False else st.one_of(good, hostile)


def _checked(context_type: type) -> type:
    if not dataclasses.is_dataclass(context_type) or not isinstance(context_type, type):
        raise UsageError(
            f"hookproof: contexts() builds dataclass contexts; {context_type!r} is not one. "
            "Pass your frozen dataclass, or build contexts with hypothesis yourself."
        )
    return context_type


def _legal_strategy(field: Field) -> st.SearchStrategy[Any]:
    return st.sampled_from(field.choices) if field.choices else field.trusted


def _hostile_contexts(context_type: type, fields: Sequence[Field]) -> st.SearchStrategy[Any]:
    literal = [i for i, f in enumerate(fields) if f.choices]
    rest: dict[int, _Others] = {i: _Others(fields, i, legal=True) for i in literal}
    malformed = [(_MALFORMED, value, None) for value in malformed_values(fields)]
    first = list(malformed)
    first += [entry for i in literal for entry in rest[i].entries(i, fields[i].hostile)]
    # Missing and empty values are the commonest way a router fails open: they come up as
    # often again as the rest of a field's catalogue (a repeat shows the same example).
    for _ in range(_SIMPLE_REPEATS):
        first += [entry for i in literal for entry in rest[i].entries(i, _simple(fields[i]))]
    # Every field drawn from everything, the last Literal one hostile (without Literal
    # fields, the last field; with one, it would be the single-field case again).
    anchor = literal[-1] if len(literal) > 1 else len(fields) - 1 if not literal else -1
    if anchor >= 0:
        rest[_EVERY_FIELD] = _Others(fields, anchor, legal=False)
        first += [(_EVERY_FIELD, value, None) for value in fields[anchor].hostile]
    # Malformed contexts (another type altogether) as often as a third of the examples.
    first += malformed * max(0, round(len(first) / len(malformed) / 2) - 1)
    choose = st.sampled_from(first)

    @st.composite
    def hostile(draw: Draw) -> Any:
        form, option, row = draw(choose)
        value = resolved(draw, option)
        if form == _MALFORMED:
            return value
        return forged(context_type, rest[form].values(draw, value, row))

    return hostile()


def _simple(field: Field) -> list[Any]:
    return [v for v in field.hostile if v is None or v == "" or (type(v) is int and v == 0)]


class _Others:
    """Draws the fields other than field ``keep`` (which holds the hostile value): their legal
    values (``legal=True``; a field that is not Literal has no domain and draws from
    everything) or everything. Literal fields that are all legal come as rows: a few ride
    along in the first draw, more take one draw of their own."""

    def __init__(self, fields: Sequence[Field], keep: int, *, legal: bool) -> None:
        self.names = [f.name for f in fields]
        self.keep = fields[keep].name
        others = [f for f in fields if f.name != self.keep]
        rows = list(itertools.islice(self._rows(others), _ROWS_LIMIT + 1))
        together = legal and others and all(f.choices for f in others) and len(rows) <= _ROWS_LIMIT
        self.inline = rows if together and len(rows) <= _INLINE_ROWS else None
        self.rows = st.sampled_from(rows) if together and self.inline is None else None
        self.each = [(f.name, _legal_options(f) if legal else f.everything) for f in others]

    @staticmethod
    def _rows(others: Sequence[Field]) -> Any:
        return itertools.product(*[[(f.name, v) for v in f.choices] for f in others])

    def entries(self, form: int, options: Sequence[Any]) -> list[tuple[int, Any, Any]]:
        """The first draw's entries for ``options`` of the kept field: one per option, or one
        per option and row when the rows ride along (the option first, so a shrunk example
        keeps the simplest hostile value and then the simplest legal row)."""
        rows = self.inline or [None]
        return [(form, option, row) for option in options for row in rows]

    def values(self, draw: Draw, kept: Any, row: Any = None) -> dict[str, Any]:
        if row is not None:
            drawn = dict(row)
        elif self.rows is not None:
            drawn = dict(draw(self.rows))
        else:
            drawn = {name: resolved(draw, draw(options)) for name, options in self.each}
        drawn[self.keep] = kept
        return {name: drawn[name] for name in self.names}


def _legal_options(field: Field) -> st.SearchStrategy[Any]:
    return st.sampled_from(field.legal) if field.choices else field.everything
