"""The subset of Go's text/template that prompts use, with missingkey=error semantics.

Supported: ``{{.name}}``, ``{{.a.b}}``, ``{{.}}``, string / number / bool literals,
``{{if X}}...{{else if Y}}...{{else}}...{{end}}``, ``{{range X}}...{{else}}...{{end}}`` over
lists, maps (in sorted key order, as Go does) and integers (0..n-1, as Go 1.22 does),
``{{- `` / `` -}}`` whitespace trimming and ``{{/* comments */}}``. Literals, white space and
comments follow Go's lexer: octal numbers, Go's string escapes, ASCII white space only.
Values print as Go's fmt does (true, <no value>, [a b], map[k:v]). Anything else —
pipelines, functions, variables, with, define, template, block — is rejected with an error
naming the construct. Checked against Go by tests/go/test_gotemplate_differential.py.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from hookproof.templates._budget import Meter, TemplateBudget
from hookproof.templates._data import read_field
from hookproof.templates._errors import (
    TemplateRenderError,
    TemplateSyntaxError,
    TemplateVariableError,
    UnsupportedTemplateConstruct,
)
from hookproof.templates._failures import variable_text
from hookproof.templates._printable import check_go_printable, check_go_text, unprintable

__all__ = ["render_go_template"]

_FIELD_CHAIN = re.compile(r"^(\.[A-Za-z_][A-Za-z0-9_]*)+$")
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
_STRING = re.compile(r'^"((?:[^"\\]|\\.)*)"$')
_BITS_PER_DIGIT = math.log2(10)
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1
# Go trims only ASCII white space around a trim marker, and a marker is "-" and one of them.
_TRIM_SPACE = " \t\r\n"
_ACTION_SPACE = re.compile("[ \t\r\n]+")
_KEYWORDS = ("with", "define", "template", "block", "break", "continue")


@dataclass
class _Text:
    text: str


@dataclass
class _Print:
    expr: str


@dataclass
class _If:
    branches: list[tuple[str, list[Any]]]
    otherwise: list[Any]


@dataclass
class _Range:
    expr: str
    body: list[Any]
    otherwise: list[Any]


def _actions(source: str, name: str) -> Iterator[tuple[int, int, str, bool, bool]]:
    """(start, end, inner text, trims left, trims right) per action, in one linear pass (a
    regular expression rescans the rest of the text at every unclosed '{{')."""
    start = source.find("{{")
    while start >= 0:
        end = _comment_end(source, start, name) or source.find("}}", start + 2)
        if end < 0:
            raise TemplateSyntaxError(name, "unclosed action: '{{' without a matching '}}'")
        inner = source[start + 2 : end]
        left = len(inner) >= 2 and inner[0] == "-" and inner[1] in _TRIM_SPACE
        body = inner[2:] if left else inner
        right = len(body) >= 2 and body[-1] == "-" and body[-2] in _TRIM_SPACE
        yield start, end + 2, body[:-2] if right else body, left, right
        start = source.find("{{", end + 2)


def _comment_end(source: str, start: int, name: str) -> int | None:
    """Where the "}}" closing a comment action is: a comment runs to the first "*/", even
    across "}}", as Go lexes it (None when the action at ``start`` is not a comment)."""
    opening = start + 2
    if source.startswith("-", opening) and source[opening + 1 : opening + 2] in _TRIM_SPACE:
        opening += 2
    if not source.startswith("/*", opening):
        return None
    closing = source.find("*/", opening + 2)
    if closing < 0:
        return None  # reported as an unclosed comment
    after = closing + 2
    if source[after : after + 1] in _TRIM_SPACE and source.startswith("-}}", after + 1):
        return after + 2
    if not source.startswith("}}", after):
        raise TemplateSyntaxError(name, "comment ends before closing delimiter")
    return after


def _tokens(source: str, name: str) -> list[tuple[str, str]]:
    """("text", ...) and ("action", ...) tokens, trim markers already applied."""
    tokens: list[tuple[str, str]] = []
    position = 0
    trim_next = False
    for start, end, inner, left, right in _actions(source, name):
        text = source[position:start]
        text = text.lstrip(_TRIM_SPACE) if trim_next else text
        text = text.rstrip(_TRIM_SPACE) if left else text
        tokens.append(("text", text))
        tokens.append(("action", _comment(inner, name) or inner.strip(_TRIM_SPACE)))
        trim_next = right
        position = end
    rest = source[position:]
    tokens.append(("text", rest.lstrip(_TRIM_SPACE) if trim_next else rest))
    return [token for token in tokens if token != ("text", "")]


def _comment(inner: str, name: str) -> str | None:
    """A comment as Go reads one: "/*" right after the delimiter (and its trim marker), "*/"
    right before the closing one; a comment anywhere else in an action is a syntax error."""
    if inner.startswith("/*"):
        if not inner.endswith("*/") or len(inner) < 4:
            raise TemplateSyntaxError(name, "comment ends before closing delimiter")
        return inner
    if inner.strip(_TRIM_SPACE).startswith("/*"):
        raise TemplateSyntaxError(
            name, "a comment must start right after '{{' (or '{{- ') and end right before '}}'"
        )
    return None


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]], meter: Meter) -> None:
        self.tokens = tokens
        self.index = 0
        self.name = meter.template
        self.meter = meter

    def parse(self, stops: Sequence[str] = ()) -> tuple[list[Any], str | None]:
        nodes: list[Any] = []
        while self.index < len(self.tokens):
            kind, value = self.tokens[self.index]
            self.index += 1
            if kind == "text":
                nodes.append(_Text(value))
                continue
            keyword = _keyword(value)
            if keyword in stops:
                return nodes, value
            nodes.append(self._action(value, keyword))
        if stops:
            raise TemplateSyntaxError(
                self.name, f"missing {{{{end}}}} (expected one of {list(stops)})"
            )
        return nodes, None

    def _action(self, value: str, keyword: str) -> Any:
        if value.startswith("/*"):  # checked by _comment
            return _Text("")
        if keyword in ("if", "range"):
            return self._block(keyword, _operand(value, self.name))
        if keyword in ("else", "end"):
            raise TemplateSyntaxError(self.name, f"unexpected {{{{{value}}}}}")
        _check_expression(value, self.name)
        return _Print(value)

    def _block(self, keyword: str, operand: str) -> _If | _Range:
        self.meter.enter(f"{{{{{keyword}}}}}")
        block = self._if(operand) if keyword == "if" else self._range(operand)
        self.meter.leave()
        return block

    def _if(self, condition: str) -> _If:
        _check_expression(condition, self.name)
        branches: list[tuple[str, list[Any]]] = []
        otherwise: list[Any] = []
        while True:
            body, stop = self.parse(("else", "end"))
            branches.append((condition, body))
            kind, rest = _stop(stop, self.name)
            if kind == "end":
                return _If(branches, otherwise)
            if kind == "else if":
                condition = rest
                _check_expression(condition, self.name)
                continue
            otherwise, stop = self.parse(("end",))
            _stop(stop, self.name, allowed=("end",))
            return _If(branches, otherwise)

    def _range(self, expression: str) -> _Range:
        _check_expression(expression, self.name)
        body, stop = self.parse(("else", "end"))
        kind, _ = _stop(stop, self.name, allowed=("else", "end"))
        otherwise: list[Any] = []
        if kind == "else":
            otherwise, stop = self.parse(("end",))
            _stop(stop, self.name, allowed=("end",))
        return _Range(expression, body, otherwise)


def _words(action: str, splits: int) -> list[str]:
    """str.split(None, splits) on the white space Go's lexer knows (ASCII only)."""
    return [part for part in _ACTION_SPACE.split(action.strip(_TRIM_SPACE), splits) if part]


def _keyword(action: str) -> str:
    parts = _words(action, 1)
    return parts[0] if parts else ""


def _operand(action: str, name: str) -> str:
    parts = _words(action, 1)
    if len(parts) < 2:
        raise TemplateSyntaxError(name, f"missing value for {{{{{action}}}}}")
    return parts[1].strip(_TRIM_SPACE)


def _stop(
    action: str | None, name: str, allowed: Sequence[str] = ("else", "else if", "end")
) -> tuple[str, str]:
    """Classify {{else}}, {{else if X}} and {{end}}; anything else there is a syntax error."""
    parts = _words(action or "", 2)
    if parts == ["end"] or parts == ["else"]:
        kind, rest = parts[0], ""
    elif len(parts) >= 2 and parts[:2] == ["else", "if"] and len(parts) == 3:
        kind, rest = "else if", parts[2].strip(_TRIM_SPACE)
    else:
        raise TemplateSyntaxError(name, f"unexpected {{{{{action}}}}}")
    if kind not in allowed:
        raise TemplateSyntaxError(name, f"{{{{{action}}}}} is not allowed here")
    return kind, rest


def _check_expression(expression: str, name: str) -> None:
    if "|" in expression:
        raise UnsupportedTemplateConstruct(
            name, f"pipelines ('|') are not supported: {{{{{expression}}}}}"
        )
    if expression.startswith("$"):
        raise UnsupportedTemplateConstruct(
            name, f"variables ($) are not supported: {{{{{expression}}}}}"
        )
    keyword = _keyword(expression)
    if keyword in _KEYWORDS:
        raise UnsupportedTemplateConstruct(name, f"{{{{{keyword}}}}} is not supported")
    if expression == "." or _FIELD_CHAIN.match(expression):
        return
    if _is_literal(expression):
        _check_literal(expression, name)
        return
    raise UnsupportedTemplateConstruct(
        name,
        f"{{{{{expression}}}}} is outside the supported subset (fields like .name or .a.b, "
        "literals, if/else/range/end, comments); functions and calls are not supported",
    )


_NOT_LITERAL = object()


def _check_literal(expression: str, name: str) -> None:
    """Go parses a literal where it stands, so a malformed one fails the whole template even
    in a branch never taken."""
    if _STRING.match(expression):
        _go_unquote(expression[1:-1], name)
    elif _NUMBER.match(expression) and "." not in expression:
        _check_octal(expression.lstrip("-"), expression, name)  # converted later, in budget


def _is_literal(expression: str) -> bool:
    return expression in ("true", "false") or bool(
        _NUMBER.match(expression) or _STRING.match(expression)
    )


def _literal(expression: str, meter: Meter) -> Any:
    if expression in ("true", "false"):
        return expression == "true"
    if _NUMBER.match(expression):
        if "." in expression:
            return float(expression)
        meter.check_int_bits(len(expression.lstrip("-")) * _BITS_PER_DIGIT, "a number literal")
        number = _go_int(expression, meter.template)
        if not _INT_MIN <= number <= _INT_MAX:  # Go's int is 64 bits
            raise TemplateRenderError(meter.template, f"{expression} overflows int")
        return number
    if _STRING.match(expression):
        return _go_unquote(expression[1:-1], meter.template)
    return _NOT_LITERAL


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


def _evaluate(expression: str, dot: Any, meter: Meter) -> Any:
    if expression == ".":
        return dot
    literal = _literal(expression, meter)
    if literal is not _NOT_LITERAL:
        return literal
    value = dot
    for key in expression[1:].split("."):
        value = read_field(value, key, expression, meter.template)
    return value


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


def _sorted_keys(value: Mapping[Any, Any]) -> list[Any]:
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
        keys = _sorted_keys(value)
        return (
            "map["
            + " ".join(f"{go_format(k, True)}:{go_format(value[k], True)}" for k in keys)
            + "]"
        )
    if isinstance(value, list | tuple):
        return "[" + " ".join(go_format(item, True) for item in value) + "]"
    return str(value)


def _truthy(value: Any) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, int | float | str | list | tuple | Mapping):
        return bool(value)
    return True


def _items(value: Any, expression: str, name: str) -> Sequence[Any]:
    if isinstance(value, Mapping):
        return [value[key] for key in _sorted_keys(value)]
    if isinstance(value, list | tuple):
        return list(value)
    if value is None:
        return []
    if isinstance(value, int) and not isinstance(value, bool):
        return range(value)  # Go 1.22: range over an integer counts 0..n-1 (lazily)
    problem, _ = unprintable(value, limit=1)
    shown = problem.removeprefix("is ") if problem else go_format(value)  # never an address
    raise TemplateVariableError(
        name, f"range can't iterate over {shown} ({type(value).__name__})", variable=expression
    )


def _print(expression: str, dot: Any, meter: Meter) -> str:
    value = meter.check_int(_evaluate(expression, dot, meter))
    check_go_printable(value, expression, meter)
    text = variable_text(value, expression, meter.template, go_format)
    return check_go_text(value, text, expression, meter)


def _execute(nodes: list[Any], dot: Any, out: list[str], meter: Meter) -> None:
    for node in nodes:
        if isinstance(node, _Text):
            out.append(meter.write(node.text))
        elif isinstance(node, _Print):
            out.append(meter.write(_print(node.expr, dot, meter)))
        elif isinstance(node, _If):
            chosen = next(
                (body for cond, body in node.branches if _truthy(_evaluate(cond, dot, meter))),
                node.otherwise,
            )
            _execute(chosen, dot, out, meter)
        else:
            items = _items(_evaluate(node.expr, dot, meter), node.expr, meter.template)
            for item in meter.counted(items):
                _execute(node.body, item, out, meter)
            if not items:
                _execute(node.otherwise, dot, out, meter)


def render_go_template(
    text: str, variables: Mapping[str, Any], name: str, budget: TemplateBudget
) -> str:
    """Render ``text`` with ``variables`` as the dot, within ``budget``."""
    meter = Meter(budget, name)
    nodes, _ = _Parser(_tokens(text, name), meter).parse()
    out: list[str] = []
    _execute(nodes, variables, out, meter)
    return "".join(out)
