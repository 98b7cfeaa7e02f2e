"""Where a Jinja2 template makes text out of values: filters, ``str.format``, ``%`` and sums.

Every path that turns a value into text refuses machinery (see _printable), and every path
whose cost is not the size of its result is estimated or charged before it runs:
``'{0:>{1}}'.format('a', '900000000')`` is refused once its nested width is known,
``tojson(indent=n)`` and ``indent(n)`` by the size they would write, ``sum(start=[])`` by
the lists it copies, slow filters (``wordwrap``, ``sort``, ``urlize``...) by their input.
"""

from __future__ import annotations

import functools
import math
import re
import types
from collections.abc import Callable, Mapping, Sequence, Sized
from typing import Any

from jinja2 import pass_environment
from jinja2.filters import make_attrgetter
from jinja2.sandbox import SandboxedEscapeFormatter, SandboxedFormatter
from markupsafe import Markup

from hookproof.templates._budget import Meter

__all__ = ["charge_filter", "check_filter_text", "check_percent", "metered_sum", "str_format"]

# Filters that pass values on (or read numbers) without making text of them: what they
# return is checked where it is printed. Every other filter's value and arguments become
# text, so they must print as data.
_STRUCTURAL = frozenset(
    {
        "abs", "attr", "batch", "count", "d", "default", "dictsort", "first", "float",
        "groupby", "int", "items", "last", "length", "list", "map", "max", "min", "reject",
        "rejectattr", "reverse", "round", "select", "selectattr", "slice", "sort", "sum",
        "unique",
    }
)  # fmt: skip
# Work per character or item read, in built characters: measured against ``|upper``
# (wordwrap and urlize run a regular expression per word, sort and groupby compare items in
# Python, xmlattr and pprint build text per item, map and select call a function per item).
_WORK = {
    "wordwrap": 10, "urlize": 10, "title": 2, "pprint": 10, "tojson": 2, "sort": 20,
    "unique": 10, "dictsort": 10, "groupby": 20, "xmlattr": 50, "join": 2, "striptags": 2,
    "wordcount": 2, "urlencode": 2, "map": 10, "select": 10, "reject": 10, "selectattr": 10,
    "rejectattr": 10, "batch": 2, "slice": 2,
}  # fmt: skip
# Filters that read a fixed part of their input, however long it is.
_CONSTANT_WORK = frozenset(
    {"abs", "attr", "count", "d", "default", "first", "float", "int", "last", "length", "round"}
)
_WRAPPED_LINE_WORK = 100  # textwrap builds each line in Python: ~13 µs a line at width 1
_DIGITS = re.compile(r"\d+")
_BY_REPR = re.compile(r"%(?:\([^)]*\))?[#0 +\-\d.*]*[ra]")  # %r, %-20a, %(name)r


def check_filter_text(meter: Meter, name: str, values: Sequence[Any]) -> None:
    """The filtered value and the arguments of a filter that makes text must print as data."""
    if name == "join" and values and isinstance(values[0], list):
        values = [*values[0], *values[1:]]  # join makes each item's str(), not its repr()
    if name not in _STRUCTURAL:
        for value in values:
            # pprint shows a value that refers to itself as <Recursion on list with id=...>
            pprint = name == "pprint"
            meter.check_printable(value, by_repr=pprint, cycles=pprint)


def _size(value: Any) -> int:
    return len(value) if isinstance(value, Sized) else 0


def charge_filter(meter: Meter, name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
    """Charge a filter's work on its input before it runs."""
    if not args or name in _CONSTANT_WORK:
        return
    meter.charge_built(_size(args[0]) * _WORK.get(name, 1))
    if name == "wordwrap" and isinstance(args[0], str):
        width = args[1] if len(args) > 1 else kwargs.get("width", 79)
        if isinstance(width, int):
            meter.charge_built(len(args[0]) // max(width, 1) * _WRAPPED_LINE_WORK)


def _check_spec(meter: Meter, written: int, spec: str) -> None:
    """A format spec's width and precision are the size of the text it makes."""
    numbers = sum(int(n) if len(n) < 20 else math.inf for n in _DIGITS.findall(spec))
    if written + numbers > meter.budget.max_output_chars:
        what = f"a width in the format spec {spec[:40]!r} (would be {written + numbers:,} long)"
        raise meter.refuse("max_output_chars", what)


class _MeteredFormatting:
    """``str.format`` fields, each made after its resolved spec passes the budget."""

    meter: Meter
    written = 0

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        if conversion in ("r", "a"):
            self.meter.check_printable(value, by_repr=True)
        return super().convert_field(value, conversion)  # type: ignore[misc]

    def format_field(self, value: Any, format_spec: str) -> Any:
        # Python's formatter is a loop written in Python: each field counts as an iteration.
        self.meter.iterate()
        self.meter.check_printable(value)
        _check_spec(self.meter, self.written, format_spec)
        text = super().format_field(value, format_spec)  # type: ignore[misc]
        self.written += len(text)
        return text


class _Formatter(_MeteredFormatting, SandboxedFormatter):
    pass


class _EscapeFormatter(_MeteredFormatting, SandboxedEscapeFormatter):
    pass


def _formatter(env: Any, text: str, meter: Meter) -> SandboxedFormatter:
    formatter = (
        _EscapeFormatter(env, escape=text.escape) if isinstance(text, Markup) else _Formatter(env)
    )
    formatter.meter = meter
    return formatter


def str_format(env: Any, method: Any, meter: Callable[[], Meter]) -> Callable[..., str] | None:
    """The sandbox's hook for ``text.format`` / ``text.format_map``: a metered version."""
    kinds = (types.MethodType, types.BuiltinMethodType)
    if not isinstance(method, kinds) or method.__name__ not in ("format", "format_map"):
        return None
    text = method.__self__
    if not isinstance(text, str):
        return None
    as_map = method.__name__ == "format_map"

    def formatted(*args: Any, **kwargs: Any) -> str:
        if as_map and (kwargs or len(args) != 1):
            raise TypeError("format_map() takes exactly one argument, a mapping")
        args, kwargs = ((), args[0]) if as_map else (args, kwargs)
        return type(text)(_formatter(env, text, meter()).vformat(text, args, kwargs))

    return functools.update_wrapper(formatted, method)


def check_percent(meter: Meter, left: Any, right: Any) -> None:
    """``text % values``: the values it prints must print as data."""
    if isinstance(left, str | bytes):
        text = left.decode("latin-1") if isinstance(left, bytes) else left
        by_repr = _BY_REPR.search(text) is not None
        parts = right.values() if isinstance(right, Mapping) else right
        for part in parts if isinstance(right, tuple | Mapping) else (right,):
            meter.check_printable(part, by_repr=by_repr)


def metered_sum(meter: Callable[[], Meter]) -> Callable[..., Any]:
    """``|sum``: adding lists or tuples copies the total each time, so each step is charged
    (``range(100000)|batch(1)|sum(start=[])`` would copy five billion items)."""

    @pass_environment
    def sum_filter(environment: Any, iterable: Any, attribute: Any = None, start: Any = 0) -> Any:
        if attribute is not None:
            iterable = map(make_attrgetter(environment, attribute), iterable)
        if isinstance(start, str | bytes):
            return sum(iterable, start)  # Python's own error: use join for text
        total, spent = start, meter()
        for item in iterable:
            spent.charge_built(_size(total) + _size(item))
            total = spent.check_int(total + item)
        return total

    return sum_filter
