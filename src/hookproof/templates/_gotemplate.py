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

from collections.abc import Mapping, Sequence
from typing import Any

from hookproof.errors import TemplateVariableError
from hookproof.templates._budget import Meter, TemplateBudget
from hookproof.templates._data import read_field
from hookproof.templates._failures import variable_text
from hookproof.templates._go_literals import NOT_LITERAL, literal
from hookproof.templates._go_parse import If, Print, Text, parse
from hookproof.templates._go_print import check_go_printable, check_go_text, go_format, sorted_keys
from hookproof.templates._printable import unprintable

__all__ = ["render_go_template"]


def _evaluate(expression: str, dot: Any, meter: Meter) -> Any:
    if expression == ".":
        return dot
    value = literal(expression, meter)
    if value is not NOT_LITERAL:
        return value
    value = dot
    for key in expression[1:].split("."):
        value = read_field(value, key, expression, meter.template)
    return value


def _truthy(value: Any) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, int | float | str | list | tuple | Mapping):
        return bool(value)
    return True


def _items(value: Any, expression: str, name: str) -> Sequence[Any]:
    if isinstance(value, Mapping):
        return [value[key] for key in sorted_keys(value)]
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
        if isinstance(node, Text):
            out.append(meter.write(node.text))
        elif isinstance(node, Print):
            out.append(meter.write(_print(node.expr, dot, meter)))
        elif isinstance(node, If):
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
    nodes = parse(text, meter)
    out: list[str] = []
    _execute(nodes, variables, out, meter)
    return "".join(out)
