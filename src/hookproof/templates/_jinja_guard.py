"""Checks before a Jinja2 operation that can build a value far larger than its inputs.

``'a' * 10**9``, ``'x'.center(10**9)``, ``s|replace('a', s)`` or ``'%999999999d' % 1``
would allocate gigabytes before any output is counted, so their result size is estimated
from the operands first and refused when it exceeds the output budget.
"""

from __future__ import annotations

import math
import re
import string
import types
from collections.abc import Mapping, Sequence, Sized
from typing import Any

from hookproof.templates._budget import Meter, weight

__all__ = ["check_binop", "check_filter", "check_method", "is_join", "listed"]

_SEQUENCES = (str, bytes, list, tuple)
_DIGITS = re.compile(r"\d+")
_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0 +\-]*(\*|\d*)(?:\.(\*|\d*))?")
# Filters whose integer arguments are values, not sizes; in every other filter an integer
# argument is a width or a count of rows, columns or spaces.
_VALUE_FILTERS = frozenset(
    {"abs", "attr", "d", "default", "float", "int", "map", "reject", "rejectattr", "replace"}
    | {"format", "round", "select", "selectattr", "sum", "truncate"}
)


def _check_length(meter: Meter, size: float, what: str) -> None:
    if size > meter.budget.max_output_chars:
        raise meter.refuse("max_output_chars", f"{what} (would be {math.ceil(size):,} long)")


def _spec_numbers(text: str, brace_style: bool) -> tuple[list[str], bool]:
    """The widths and precisions written in ``text``, and whether others come from the
    arguments (``%*d``, ``{:{width}}``)."""
    if not brace_style:
        numbers = [n for pair in _PERCENT_SPEC.findall(text) for n in pair if n]
        return [n for n in numbers if n != "*"], "*" in numbers
    try:
        specs = [spec or "" for _, _, spec, _ in string.Formatter().parse(text)]
    except ValueError:
        return [], False  # malformed: formatting itself raises, nothing gets built
    return [n for spec in specs for n in _DIGITS.findall(spec)], any("{" in s for s in specs)


def _check_format(
    meter: Meter, text: Any, arguments: Sequence[Any], brace_style: bool = False
) -> None:
    """A width or precision in a format spec is the size of what it prints."""
    if isinstance(text, bytes):
        text = text.decode("latin-1")  # bytes % args: the same specs, byte for character
    if isinstance(text, str):
        numbers, from_arguments = _spec_numbers(text, brace_style)
        widths = sum(int(n) if len(n) < 20 else math.inf for n in numbers)
        _check_length(meter, widths, "a width in the format string")
        if from_arguments:
            _check_size_arguments(meter, arguments, {})


def _int_size(value: Any) -> int:
    return abs(value) if isinstance(value, int) and not isinstance(value, bool) else 0


def _check_size_arguments(meter: Meter, args: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
    largest = max(map(_int_size, [*args, *kwargs.values()]), default=0)
    _check_length(meter, largest, f"a size argument of {largest:,}")
    total = sum(map(_int_size, [*args, *kwargs.values()]))  # several widths: '%*d%*d'
    _check_length(meter, total, f"size arguments adding up to {total:,}")


def _same_text_type(*values: Any) -> bool:
    return all(isinstance(v, str) for v in values) or all(isinstance(v, bytes) for v in values)


def _check_replace(meter: Meter, text: Any, old: Any, new: Any) -> None:
    if _same_text_type(text, old, new):
        hits = text.count(old) if old else len(text) + 1
        _check_length(meter, len(text) + hits * (len(new) - len(old)), "the replaced text")


def _check_join(meter: Meter, separator: Any, items: Any) -> None:
    if isinstance(separator, str | bytes) and isinstance(items, Sized):
        _check_length(meter, len(separator) * len(items), "the joined text")


def _check_expandtabs(meter: Meter, text: Any, args: Sequence[Any], kwargs: Any) -> None:
    size = args[0] if args else kwargs.get("tabsize", 8)
    if isinstance(text, str | bytes) and isinstance(size, int):
        tabs = text.count("\t") if isinstance(text, str) else text.count(b"\t")
        _check_length(meter, len(text) + tabs * size, "the text with tabs expanded")


def _check_translate(meter: Meter, text: Any, table: Any) -> None:
    if isinstance(text, str) and isinstance(table, Mapping):
        longest = max((len(v) for v in table.values() if isinstance(v, str)), default=1)
        _check_length(meter, len(text) * longest, "the translated text")


def _check_wordwrap(meter: Meter, args: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
    """At most one line per ``width`` characters, each ending in the wrap string."""
    text, width = args[0], args[1] if len(args) > 1 else kwargs.get("width", 79)
    wrap = args[3] if len(args) > 3 else kwargs.get("wrapstring")
    if isinstance(text, str) and isinstance(width, int) and isinstance(wrap, str):
        lines = len(text) // max(width, 1) + 1
        _check_length(meter, len(text) + lines * len(wrap), "the wrapped text")


def _check_indent(meter: Meter, text: str, width: Any) -> None:
    """Every line but the first gets the indentation (a string, or that many spaces)."""
    size = len(width) if isinstance(width, str) else _int_size(width)
    _check_length(meter, len(text) + text.count("\n") * size, "the indented text")


def _check_json_indent(meter: Meter, value: Any, indent: Any) -> None:
    """Indented JSON has a line per item, indented once per level it is nested in."""
    step = len(indent) if isinstance(indent, str) else _int_size(indent)
    if step:
        items, depth = _shape(value, meter.budget.max_output_chars)
        _check_length(meter, items * depth * step, "the indented JSON")


def _shape(value: Any, limit: int) -> tuple[int, int]:
    """How many items ``value`` holds and how deep it nests (counting stops past limit)."""
    items, depth, pending = 0, 0, [(value, 1)]
    while pending and items <= limit:
        item, level = pending.pop()
        items, depth = items + 1, max(depth, level)
        if isinstance(item, Mapping):
            pending.extend((child, level + 1) for child in item.values())
        elif isinstance(item, list | tuple):
            pending.extend((child, level + 1) for child in item)
    return items, depth


def listed(args: tuple[Any, ...], position: int) -> tuple[Any, ...]:
    """``args`` with the one at ``position`` made a list, so a join's size can be estimated
    (its items came from counted loops, so listing them is bounded)."""
    if len(args) > position and not isinstance(args[position], Sized):
        return (*args[:position], list(args[position]), *args[position + 1 :])
    return args


def is_join(method: Any) -> bool:
    return isinstance(method, types.BuiltinMethodType) and method.__name__ == "join"


def check_binop(meter: Meter, operator: str, left: Any, right: Any) -> None:
    """Refuse ``*``, ``**`` and ``%`` whose result would exceed a budget."""
    if operator == "**" and isinstance(left, int) and isinstance(right, int) and right > 0:
        meter.check_int_bits(max(left.bit_length() - 1, 0) * right, "the power")
    elif operator == "*" and isinstance(left, int) and isinstance(right, int):
        meter.check_int_bits(left.bit_length() + right.bit_length() - 1, "the product")
    elif operator == "*":
        sequence, count = (left, right) if isinstance(left, _SEQUENCES) else (right, left)
        if isinstance(sequence, _SEQUENCES) and isinstance(count, int):
            held = weight(sequence, meter.budget.max_output_chars)
            items = held if isinstance(sequence, str | bytes) else held - 1  # not the list
            _check_length(meter, items * count, "the repeated sequence")
    elif operator == "%":
        _check_format(meter, left, right if isinstance(right, tuple) else (right,))


def check_method(meter: Meter, method: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
    """Methods of builtin values (``'x'.center(n)``, ``(1).to_bytes(n)``): integer arguments
    are sizes; replace, join, expandtabs, translate and format are estimated from their
    operands."""
    method = getattr(method, "__wrapped__", method)  # the sandbox wraps str.format
    owner = getattr(method, "__self__", None)
    if not isinstance(method, types.BuiltinMethodType) or owner is None:
        return
    if isinstance(owner, types.ModuleType):
        return
    name = method.__name__
    if name == "replace" and len(args) >= 2:
        _check_replace(meter, owner, args[0], args[1])
    elif name == "join" and args:
        _check_join(meter, owner, args[0])
    elif name == "expandtabs":
        _check_expandtabs(meter, owner, args, kwargs)
    elif name == "translate" and args:
        _check_translate(meter, owner, args[0])
    elif name in ("format", "format_map"):
        _check_format(meter, owner, [*args, *kwargs.values()], brace_style=True)
    else:
        _check_size_arguments(meter, args, kwargs)


def check_filter(meter: Meter, name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
    """``args`` start with the filtered value (after any context jinja2 passes first)."""
    if name == "replace" and len(args) >= 3:
        _check_replace(meter, args[0], args[1], args[2])
    elif name == "join" and len(args) >= 2:
        _check_join(meter, args[1], args[0])
    elif name == "indent" and args and isinstance(args[0], str):
        _check_indent(meter, args[0], args[1] if len(args) > 1 else kwargs.get("width", 4))
    elif name == "tojson" and args:
        _check_json_indent(meter, args[0], args[1] if len(args) > 1 else kwargs.get("indent"))
    elif name == "format" and args:
        _check_format(meter, args[0], [*args[1:], *kwargs.values()])
    elif name == "wordwrap" and args:
        _check_wordwrap(meter, args, kwargs)
    if name not in _VALUE_FILTERS:
        _check_size_arguments(meter, args[1:], kwargs)
