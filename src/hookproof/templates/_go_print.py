"""How the Go template subset prints a value: Go's fmt %v, and never Python's machinery."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from hookproof.errors import TemplateSecurityError
from hookproof.templates._budget import Meter
from hookproof.templates._printable import address_problem, refusal, unprintable

__all__ = ["check_go_printable", "check_go_text", "go_format", "sorted_keys"]


def _go_float(value: float) -> str:
    """Go's %v for a float64: strconv's shortest 'g' (exponent form when the decimal exponent
    is below -4 or at least 6, with at least two exponent digits)."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if repr(value).startswith("-") else "0"
    sign, digit_tuple, exponent = Decimal(repr(value)).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    point = len(digits) + int(exponent)
    prefix = "-" if sign else ""
    power = point - 1
    if power < -4 or power >= 6:
        mantissa = digits[0] + (f".{digits[1:]}" if len(digits) > 1 else "")
        return f"{prefix}{mantissa}e{'+' if power >= 0 else '-'}{abs(power):02d}"
    if point <= 0:
        return f"{prefix}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return prefix + digits + "0" * (point - len(digits))
    return f"{prefix}{digits[:point]}.{digits[point:]}"


def sorted_keys(value: Mapping[Any, Any]) -> list[Any]:
    try:
        return sorted(value)
    except TypeError:
        return sorted(value, key=lambda key: (type(key).__name__, str(key)))


def go_format(value: Any, nested: bool = False) -> str:
    """How Go's fmt prints a value with %v (a missing value is <no value>, a nil one <nil>)."""
    if value is None:
        return "<nil>" if nested else "<no value>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        keys = sorted_keys(value)
        return (
            "map["
            + " ".join(f"{go_format(k, True)}:{go_format(value[k], True)}" for k in keys)
            + "]"
        )
    if isinstance(value, list | tuple):
        return "[" + " ".join(go_format(item, True) for item in value) + "]"
    return str(value)


def check_go_printable(value: Any, expression: str, meter: Meter) -> None:
    """Refuse printing machinery in the Go subset, also inside lists, maps and data."""
    limit = meter.budget.max_output_chars
    problem, looked = unprintable(value, limit=limit, items_by_repr=False)
    if looked > limit:
        raise meter.refuse("max_output_chars", f"a printed value of over {limit:,} parts")
    if problem:
        raise go_refusal(problem, expression, meter)


def check_go_text(value: Any, text: str, expression: str, meter: Meter) -> str:
    """``text``, made from ``value``, if it shows no memory address."""
    if problem := address_problem(value, text):
        raise go_refusal(problem, expression, meter)
    return text


def go_refusal(problem: str, expression: str, meter: Meter) -> TemplateSecurityError:
    return TemplateSecurityError(
        meter.template, f"executing at <{expression}>: the value {refusal(problem)}"
    )
