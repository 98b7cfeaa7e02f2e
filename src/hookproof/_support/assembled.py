"""Frozen dataclasses built on a hot path without their generated ``__init__``.

A frozen dataclass' ``__init__`` sets each field through ``object.__setattr__``: about 1,300
instructions per field, so a 9-field ``TargetRun`` costs about as much to build as a short
hook call. A check builds a few of these per example; ``assembled`` fills the instance's
``__dict__`` in one step instead. The result is the same instance the constructor makes
(equal, same repr and hash), which ``tests/support/test_assembled.py`` compares class by
class. Only for dataclasses without ``__slots__`` or ``__post_init__``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["assembled"]

T = TypeVar("T")

# Per class: its fields' plain defaults, the fields whose default is a factory, and how many
# fields it has.
_Defaults = tuple[dict[str, Any], tuple[tuple[str, Callable[[], Any]], ...], int]
_DEFAULTS: dict[type, _Defaults] = {}


def assembled(cls: type[T], **values: Any) -> T:
    """``cls(**values)`` for a frozen dataclass ``cls``, without its per-field setattr."""
    plain, factories, count = _DEFAULTS.get(cls) or _defaults_of(cls)
    fields = {**plain, **values}
    for name, factory in factories:
        if name not in values:
            fields[name] = factory()
    if len(fields) != count:  # a required field missing, or a name that is no field
        return cls(**values)  # raises the constructor's own TypeError
    instance = object.__new__(cls)
    instance.__dict__.update(fields)
    return instance


def _defaults_of(cls: type) -> _Defaults:
    if "__slots__" in cls.__dict__ or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} cannot be assembled: it has __slots__ or __post_init__")
    fields = dataclasses.fields(cls)
    plain = {f.name: f.default for f in fields if f.default is not dataclasses.MISSING}
    factories = tuple(
        (f.name, f.default_factory) for f in fields if f.default_factory is not dataclasses.MISSING
    )
    _DEFAULTS[cls] = (plain, factories, len(fields))
    return _DEFAULTS[cls]
