"""FString templates: ``{name}`` substitution, ``{{`` and ``}}`` escapes, nothing else."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from hookproof.errors import TemplateSyntaxError, TemplateVariableError
from hookproof.templates._budget import Meter, TemplateBudget
from hookproof.templates._failures import variable_text

__all__ = ["render_fstring"]

_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _field_end(text: str, start: int, name: str) -> int:
    end = text.find("}", start)
    if end < 0:
        raise TemplateSyntaxError(name, "Single '{' encountered in format string")
    return end


def render_fstring(
    text: str, variables: Mapping[str, Any], name: str, budget: TemplateBudget
) -> str:
    """Render ``text``; a lone brace or a missing key raises an error naming it."""
    meter = Meter(budget, name)
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        pair = text[index : index + 2]
        if pair in ("{{", "}}"):
            out.append(char)
            index += 2
        elif char == "}":
            raise TemplateSyntaxError(name, "Single '}' encountered in format string")
        elif char == "{":
            end = _field_end(text, index + 1, name)
            out.append(meter.write(_value(text[index + 1 : end], variables, meter)))
            index = end + 1
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _value(field: str, variables: Mapping[str, Any], meter: Meter) -> str:
    name = meter.template
    if not _FIELD.fullmatch(field):
        problem = (
            "Single '{' encountered in format string"
            if "{" in field
            else (
                f"field {{{field}}} is not a plain variable name (positional fields, attribute "
                "access, indexing, conversions and format specs are not supported); name the "
                "variable, e.g. {name}"
            )
        )
        raise TemplateSyntaxError(name, problem, variable=field or None)
    if field not in variables:
        raise TemplateVariableError(name, f"could not find key: {field}", variable=field)
    value = meter.check_printable(meter.check_int(variables[field]), cycles=True)
    return variable_text(value, field, name, str)
