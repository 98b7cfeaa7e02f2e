"""Which values a template may turn into text: data, never Python's machinery.

A function, method, class, module, generator or an object whose class has no text of its
own prints as ``<... at 0x7f...>``: a memory address, different on every run, that tells the
model nothing. Printing one is refused, and so is printing a list, mapping, dataclass or
pydantic model that holds one, whichever way the text is made (printed, ``|string``,
``'{}'.format``, ``'%r' %``, ``~``, ``|pprint``...). A container that holds itself is
refused too: Python prints it as ``[...]`` and pprint as ``<Recursion on list with id=...>``.
Some classes write their own text with an address in it (``threading.Lock()`` prints as
``<unlocked _thread.lock object at 0x7f...>``, memoryview, WeakValueDictionary...), so as a
last check, text made from anything but a plain string or number is refused if it shows one.
"""

from __future__ import annotations

import dataclasses
import re
from collections import deque
from collections.abc import ItemsView, KeysView, Mapping, ValuesView
from typing import Any

from pydantic import BaseModel

from hookproof.templates._data import machinery_kind

__all__ = ["address_problem", "refusal", "unprintable"]

_SCALARS = (str, bytes, int, float, complex, type(None))
_COLLECTIONS = (list, tuple, set, frozenset, KeysView, ValuesView, ItemsView, deque)
_PLAIN = frozenset({str, int, float, bool, type(None)})
_PLAIN_COLLECTIONS = frozenset({list, tuple})
_OBJECT_REPR: Any = object.__repr__
_OBJECT_STR: Any = object.__str__
# An object's address as Python's reprs show it: ``<... at 0x7f...>``, pprint's ``id=1406...``
# (the gap after "object" is bounded, so a long text is searched in linear time).
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+|id=\d{6,}|\bobject\b[^\n]{0,200}?0x[0-9a-fA-F]{8,}")
_SELF = "refers to itself"
_ADDRESS_SHOWN = "whose text shows a memory address"


def refusal(problem: str) -> str:
    """What follows "the value" in a refusal to print it: the problem, and why."""
    if problem.endswith(_SELF):
        why = (
            "so it nests deeper than Python can follow: it prints as [...] or as a memory "
            "address, not as data"
        )
    elif problem.endswith(_ADDRESS_SHOWN):
        why = "not data"
    else:
        why = "which prints as a memory address, not as data"
    return f"{problem}, {why}; pass the text or data the prompt needs instead."


def address_problem(value: Any, text: str) -> str | None:
    """The last check on ``text``, made from ``value``: an address in it is a problem
    (None if ``value`` is a plain string or number, whose text is the data itself)."""
    if type(value) in _PLAIN or isinstance(value, str) or not _ADDRESS.search(text):
        return None
    return f"is a {type(value).__name__} {_ADDRESS_SHOWN}"


def _own_text(value: Any, by_repr: bool) -> bool:
    """Whether the class writes its own text (else object's: the class name and address)."""
    kind: Any = type(value)
    own_repr = kind.__repr__ is not _OBJECT_REPR
    return own_repr or (not by_repr and kind.__str__ is not _OBJECT_STR)


def _problem(value: Any, by_repr: bool) -> str | None:
    if isinstance(value, _SCALARS) or hasattr(type(value), "_fail_with_undefined_error"):
        return None  # (jinja2's undefined value raises its own error when printed)
    if type(value).__module__.split(".")[0] == "jinja2":
        return f"a jinja2 {type(value).__name__}"  # loop, cycler, namespace, macro...
    if kind := machinery_kind(value):
        return kind
    if not _own_text(value, by_repr):
        return f"a {type(value).__name__} object without text of its own"
    return None


def _parts(value: Any, items_by_repr: bool) -> tuple[list[Any], bool]:
    """What ``value``'s text is made of, and whether each part prints by its repr()."""
    if type(value) in _PLAIN_COLLECTIONS or isinstance(value, _COLLECTIONS):
        return list(value), items_by_repr
    if isinstance(value, Mapping):
        return [*value.keys(), *value.values()], items_by_repr
    if isinstance(value, BaseModel):
        return [item for _, item in value], True
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return [getattr(value, field.name) for field in fields if field.repr], True
    return [], True


def unprintable(
    value: Any,
    *,
    limit: int,
    by_repr: bool = False,
    items_by_repr: bool = True,
    cycles: bool = True,
) -> tuple[str | None, int]:
    """What in ``value`` would print as machinery ("is a function", "holds a class"; None
    if nothing), and how many parts were looked at; the walk stops past ``limit`` parts.
    ``by_repr``: ``value`` prints by repr() (``!r``, ``%r``); ``items_by_repr``: a container
    prints its items by repr(), as Python's do (Go's print them as text); ``cycles``: a value
    that refers to itself is a problem (else it is left to print as Python's ``[...]``)."""
    # Depth first: an item met again while its own parts are being looked at is a cycle; one
    # met again after that is only shared (``[x, x]``), and looked at once.
    pending: list[tuple[Any, bool] | int] = [(value, by_repr)]
    inside, done, visited, looked = set[int](), set[int](), list[Any](), 1
    while pending and looked <= limit:
        entry = pending.pop()
        if isinstance(entry, int):
            inside.discard(entry)
            done.add(entry)
            continue
        item, through_repr = entry
        if id(item) in inside and cycles:
            what = "" if item is value else f"holds a {type(item).__name__} that "
            return f"{what}{_SELF}", looked
        if id(item) in done or id(item) in inside:
            continue
        visited.append(item)  # kept alive, so no later part is given a visited part's id
        if problem := _problem(item, through_repr):
            return f"{'is' if item is value else 'holds'} {problem}", looked
        parts, parts_by_repr = _parts(item, items_by_repr)
        looked += len(parts)  # plain strings and numbers are counted, not visited
        inside.add(id(item))
        pending.append(id(item))
        pending.extend((part, parts_by_repr) for part in parts if type(part) not in _PLAIN)
    return None, looked
