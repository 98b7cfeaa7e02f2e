"""Literals of the Go template subset, read as Go reads them: numbers (octal with a leading
zero, 64-bit ints), double-quoted strings with Go's escapes, true and false."""

from __future__ import annotations

import math
import re
from typing import Any

from hookproof.errors import TemplateRenderError, TemplateSyntaxError, UnsupportedTemplateConstruct
from hookproof.templates._budget import Meter

__all__ = ["NOT_LITERAL", "NUMBER", "STRING", "check_literal", "is_literal", "literal"]

NUMBER = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")  # ASCII digits only, as Go lexes numbers
STRING = re.compile(r'^"((?:[^"\\]|\\.)*)"$')
_BITS_PER_DIGIT = math.log2(10)
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1

NOT_LITERAL = object()


def check_literal(expression: str, name: str) -> None:
    """Go parses a literal where it stands, so a malformed one fails the whole template even
    in a branch never taken."""
    if STRING.match(expression):
        _go_unquote(expression[1:-1], name)
    elif NUMBER.match(expression) and "." not in expression:
        _check_octal(expression.lstrip("-"), expression, name)  # converted later, in budget


def is_literal(expression: str) -> bool:
    return expression in ("true", "false") or bool(
        NUMBER.match(expression) or STRING.match(expression)
    )


def literal(expression: str, meter: Meter) -> Any:
    if expression in ("true", "false"):
        return expression == "true"
    if NUMBER.match(expression):
        if "." in expression:
            return float(expression)
        meter.check_int_bits(len(expression.lstrip("-")) * _BITS_PER_DIGIT, "a number literal")
        number = _go_int(expression, meter.template)
        if not _INT_MIN <= number <= _INT_MAX:  # Go's int is 64 bits
            raise TemplateRenderError(meter.template, f"{expression} overflows int")
        return number
    if STRING.match(expression):
        return _go_unquote(expression[1:-1], meter.template)
    return NOT_LITERAL


def _go_int(expression: str, name: str) -> int:
    """Go reads a leading zero as octal: 010 is 8, 08 is an error."""
    digits = expression.lstrip("-")
    if not _check_octal(digits, expression, name):
        return int(expression)
    return int(expression[: len(expression) - len(digits)] + digits, 8)


def _check_octal(digits: str, expression: str, name: str) -> bool:
    """Whether the digits are octal (a leading zero); an 8 or 9 among them is an error."""
    if len(digits) < 2 or digits[0] != "0":
        return False
    if any(char not in "01234567" for char in digits):
        raise TemplateSyntaxError(name, f"illegal number syntax: {expression!r}")
    return True


_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    '"': '"',
}
_HEX_WIDTHS = {"x": 2, "u": 4, "U": 8}


def _go_unquote(body: str, name: str) -> str:
    """A double-quoted literal as Go's strconv.Unquote reads it: Go's escapes only (no \\'
    or \\0; octal always three digits) and no raw line break."""
    out: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\n":
            raise TemplateSyntaxError(name, "unterminated quoted string (a line break)")
        if char != "\\":
            out.append(char)
            index += 1
            continue
        escape = body[index + 1 : index + 2]
        if escape in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[escape])
            index += 2
            continue
        value, index = _numeric_escape(body, index, name)
        out.append(chr(value))
    return "".join(out)


def _numeric_escape(body: str, index: int, name: str) -> tuple[int, int]:
    """The code of a \\x, \\u, \\U or octal escape at ``index``, and the index after it."""
    escape = body[index + 1 : index + 2]
    width = _HEX_WIDTHS.get(escape)
    start = index + 2 if width else index + 1
    digits = body[start : start + (width or 3)]
    allowed = "0123456789abcdefABCDEF" if width else "01234567"
    if not escape or len(digits) != (width or 3) or any(c not in allowed for c in digits):
        raise TemplateSyntaxError(name, f"invalid escape \\{body[index + 1 : index + 4]!s}")
    value = int(digits, 16 if width else 8)
    if escape in "uU" and (value > 0x10FFFF or 0xD800 <= value <= 0xDFFF):
        raise TemplateSyntaxError(name, f"invalid escape \\{escape}{digits}")
    if escape not in "uU" and value > 0x7F:
        # Go makes a raw byte, a string that is not UTF-8: a Python str cannot hold one.
        raise UnsupportedTemplateConstruct(
            name, f"a byte escape above 0x7f (\\{escape if width else ''}{digits}) is not supported"
        )
    return value, start + len(digits)
