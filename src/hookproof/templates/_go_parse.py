"""Lexing and parsing of the Go template subset: actions, trim markers, comments, and the
tree of text, prints, ifs and ranges that _gotemplate executes."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from hookproof.errors import TemplateSyntaxError, UnsupportedTemplateConstruct
from hookproof.templates._budget import Meter
from hookproof.templates._go_literals import check_literal, is_literal

__all__ = ["If", "Print", "Range", "Text", "parse"]

_FIELD_CHAIN = re.compile(r"^(\.[A-Za-z_][A-Za-z0-9_]*)+$")
# Go trims only ASCII white space around a trim marker, and a marker is "-" and one of them.
_TRIM_SPACE = " \t\r\n"
_ACTION_SPACE = re.compile("[ \t\r\n]+")
_KEYWORDS = ("with", "define", "template", "block", "break", "continue")


@dataclass
class Text:
    text: str


@dataclass
class Print:
    expr: str


@dataclass
class If:
    branches: list[tuple[str, list[Any]]]
    otherwise: list[Any]


@dataclass
class Range:
    expr: str
    body: list[Any]
    otherwise: list[Any]


def _actions(source: str, name: str) -> Iterator[tuple[int, int, str, bool, bool]]:
    """(start, end, inner text, trims left, trims right) per action, in one linear pass (a
    regular expression rescans the rest of the text at every unclosed '{{')."""
    start = source.find("{{")
    while start >= 0:
        end = _comment_end(source, start, name) or _action_end(source, start + 2, name)
        inner = source[start + 2 : end]
        left = len(inner) >= 2 and inner[0] == "-" and inner[1] in _TRIM_SPACE
        body = inner[2:] if left else inner
        right = len(body) >= 2 and body[-1] == "-" and body[-2] in _TRIM_SPACE
        yield start, end + 2, body[:-2] if right else body, left, right
        start = source.find("{{", end + 2)


_QUOTES = {'"': "quoted string", "'": "character constant", "`": "raw quoted string"}


def _action_end(source: str, position: int, name: str) -> int:
    """Where the "}}" closing the action is: quoted strings, raw strings and character
    constants are read whole, so a "}}" inside one does not close it, as Go lexes them."""
    while True:
        closing = source.find("}}", position)
        if closing < 0:
            raise TemplateSyntaxError(name, "unclosed action: '{{' without a matching '}}'")
        quotes = [index for mark in _QUOTES if (index := source.find(mark, position, closing)) >= 0]
        if not quotes:
            return closing
        position = _quote_end(source, min(quotes), name)


def _quote_end(source: str, start: int, name: str) -> int:
    """The index after the literal opening at ``start``: a raw string runs to the next
    backquote; the others end at their quote, skip escaped characters and stop at a line
    break (Go's "unterminated" errors)."""
    mark, index = source[start], start + 1
    while index < len(source):
        char = source[index]
        if char == mark:
            return index + 1
        if mark != "`" and char == "\\":
            index += 1
        elif mark != "`" and char == "\n":
            break
        index += 1
    raise TemplateSyntaxError(name, f"unterminated {_QUOTES[mark]}")


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
                nodes.append(Text(value))
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
            return Text("")
        if keyword in ("if", "range"):
            return self._block(keyword, _operand(value, self.name))
        if keyword in ("else", "end"):
            raise TemplateSyntaxError(self.name, f"unexpected {{{{{value}}}}}")
        _check_expression(value, self.name)
        return Print(value)

    def _block(self, keyword: str, operand: str) -> If | Range:
        self.meter.enter(f"{{{{{keyword}}}}}")
        block = self._if(operand) if keyword == "if" else self._range(operand)
        self.meter.leave()
        return block

    def _if(self, condition: str) -> If:
        _check_expression(condition, self.name)
        branches: list[tuple[str, list[Any]]] = []
        otherwise: list[Any] = []
        while True:
            body, stop = self.parse(("else", "end"))
            branches.append((condition, body))
            kind, rest = _stop(stop, self.name)
            if kind == "end":
                return If(branches, otherwise)
            if kind == "else if":
                condition = rest
                _check_expression(condition, self.name)
                continue
            otherwise, stop = self.parse(("end",))
            _stop(stop, self.name, allowed=("end",))
            return If(branches, otherwise)

    def _range(self, expression: str) -> Range:
        _check_expression(expression, self.name)
        body, stop = self.parse(("else", "end"))
        kind, _ = _stop(stop, self.name, allowed=("else", "end"))
        otherwise: list[Any] = []
        if kind == "else":
            otherwise, stop = self.parse(("end",))
            _stop(stop, self.name, allowed=("end",))
        return Range(expression, body, otherwise)


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
    if is_literal(expression):  # first: a string literal may hold "|" or "$"
        check_literal(expression, name)
        return
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
    raise UnsupportedTemplateConstruct(
        name,
        f"{{{{{expression}}}}} is outside the supported subset (fields like .name or .a.b, "
        "literals, if/else/range/end, comments); functions and calls are not supported",
    )


def parse(source: str, meter: Meter) -> list[Any]:
    """The nodes of ``source`` (Text, Print, If, Range), nesting counted by ``meter``."""
    nodes, _ = _Parser(_tokens(source, meter.template), meter).parse()
    return nodes
