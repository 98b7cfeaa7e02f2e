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
    LookAlike,
    Wildcard,
    compiled,
    malformed_values,
    resolved,
    trusted_values,
)
from hookproof.errors import UsageError

__all__ = ["contexts", "forged", "trusted_values"]

_MALFORMED, _EVERY_FIELD = -2, -1
_SIMPLE_REPEATS = 6
_ROWS_LIMIT = 512  # rows of the other fields that ride along in the first draw
# Rows of hostile values that ride along with each hostile value of the last Literal field:
# hypothesis draws an index below 256 or so uniformly, and far more often than one above, so
# the first draw's entries stay few.
_EVERY_ROWS = 3


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
    singles = [entry for i in literal for entry in rest[i].entries(i, fields[i].hostile)]
    # Missing and empty values are the commonest way a router fails open: they come up as
    # often again as the rest of a field's catalogue (a repeat shows the same example).
    for _ in range(_SIMPLE_REPEATS):
        singles += [entry for i in literal for entry in rest[i].entries(i, _simple(fields[i]))]
    # Every field hostile: the last Literal one, and the others drawn (from everything) or,
    # when all Literal, a few rows of their hostile values per value of the last one (without
    # Literal fields, the last field; with one, it would be the single-field case again).
    anchor = literal[-1] if len(literal) > 1 else len(fields) - 1 if not literal else -1
    every: list[tuple[int, Any, Any]] = []
    if anchor >= 0:
        rest[_EVERY_FIELD] = _Others(fields, anchor, legal=False)
        kept = fields[anchor]  # without a domain, its trusted values are as good as any
        options = kept.hostile if kept.choices else (*kept.legal, *kept.hostile)
        every = rest[_EVERY_FIELD].entries(_EVERY_FIELD, options, _EVERY_ROWS)
    first = _weighted(malformed, singles, every)
    if all(_whole(entry) for entry in first):
        # Every entry is a whole context: one choice, no further draw.
        return st.sampled_from(first).map(lambda entry: _built(context_type, rest, entry))
    return _drawn(context_type, rest, st.sampled_from(first))


def _whole(entry: tuple[int, Any, Any]) -> bool:
    """The entry is a whole context: no value of it is drawn."""
    form, option, row = entry
    return not isinstance(option, Wildcard) and (form == _MALFORMED or row is not None)


def _weighted(malformed: list[Any], singles: list[Any], every: list[Any]) -> list[Any]:
    """The entries in proportions that do not depend on how many rows ride along: malformed
    contexts about two sevenths, one hostile field four, every field one (repeats show the
    same examples)."""
    blocks = [(b, share) for b, share in ((malformed, 2), (singles, 4), (every, 1)) if b]
    total = max(len(block) / share for block, share in blocks)
    weighted: list[Any] = []
    for block, share in blocks:
        weighted += block * max(1, round(total * share / len(block)))
    return weighted


def _built(context_type: type, rest: Mapping[int, _Others], entry: Any) -> Any:
    form, option, row = entry
    value = option.build() if isinstance(option, LookAlike) else option
    return value if form == _MALFORMED else forged(context_type, rest[form].placed(value, row))


def _drawn(
    context_type: type, rest: Mapping[int, _Others], choose: st.SearchStrategy[Any]
) -> st.SearchStrategy[Any]:
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
    """The fields other than field ``keep`` (which holds the hostile value): their legal
    values (``legal=True``; a field that is not Literal has no domain and draws from
    everything) or everything. When they are all Literal, their rows (one value each) ride
    along in the first draw, up to ``_ROWS_LIMIT`` of them; otherwise each field is drawn."""

    def __init__(self, fields: Sequence[Field], keep: int, *, legal: bool) -> None:
        self.names = [f.name for f in fields]
        self.keep = fields[keep].name
        others = [f for f in fields if f.name != self.keep]
        options = [f.legal if legal else f.hostile for f in others]
        fixed = all(f.choices for f in others)
        rows = list(itertools.islice(self._rows(others, options), _ROWS_LIMIT + 1))
        self.inline = rows if fixed and len(rows) <= _ROWS_LIMIT else None
        self.each = [(f.name, _legal_options(f) if legal else f.everything) for f in others]

    @staticmethod
    def _rows(others: Sequence[Field], options: Sequence[Sequence[Any]]) -> Any:
        return itertools.product(
            *[[(f.name, v) for v in values] for f, values in zip(others, options, strict=True)]
        )

    def entries(
        self, form: int, options: Sequence[Any], per_option: int | None = None
    ) -> list[tuple[int, Any, Any]]:
        """The first draw's entries for ``options`` of the kept field: one per option and row
        when the rows ride along (the option first, so a shrunk example keeps the simplest
        hostile value and then the simplest row), else one per option. With ``per_option``,
        each option takes that many rows, spread over all of them, instead of every row."""
        rows: Sequence[Any] = self.inline if self.inline is not None else [None]
        if per_option is None or per_option >= len(rows):
            return [(form, option, row) for option in options for row in rows]
        step = len(rows) // per_option
        return [
            (form, option, rows[(index + taken * step) % len(rows)])
            for index, option in enumerate(options)
            for taken in range(per_option)
        ]

    def placed(self, kept: Any, row: Any) -> dict[str, Any]:
        drawn = {name: _built_value(value) for name, value in row}
        drawn[self.keep] = kept
        return {name: drawn[name] for name in self.names}

    def values(self, draw: Draw, kept: Any, row: Any = None) -> dict[str, Any]:
        if row is not None:
            return self.placed(kept, row)
        drawn = {name: resolved(draw, draw(options)) for name, options in self.each}
        drawn[self.keep] = kept
        return {name: drawn[name] for name in self.names}


def _built_value(value: Any) -> Any:
    return value.build() if isinstance(value, LookAlike) else value


def _legal_options(field: Field) -> st.SearchStrategy[Any]:
    return st.sampled_from(field.legal) if field.choices else field.everything
