"""Jinja2 templates in a metered sandbox (see _jinja_env) with StrictUndefined; include,
extends, import and from are rejected before rendering, and sandbox violations and spent
budgets become TemplateSecurityError."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from hookproof.errors import (
    TemplateError,
    TemplateSecurityError,
    TemplateSyntaxError,
    TemplateVariableError,
    UnsupportedTemplateConstruct,
)
from hookproof.templates._budget import Meter, TemplateBudget

__all__ = ["render_jinja2"]


def _reject_loading(tree: Any, name: str) -> None:
    from jinja2 import nodes

    forbidden = {
        nodes.Include: "include",
        nodes.Extends: "extends",
        nodes.Import: "import",
        nodes.FromImport: "from ... import",
    }
    for kind, label in forbidden.items():
        if next(iter(tree.find_all(kind)), None) is not None:
            raise UnsupportedTemplateConstruct(
                name, f"'{label}' is not allowed: prompt templates cannot load other templates"
            )


@functools.lru_cache(maxsize=256)
def _compiled(text: str, name: str, budget: TemplateBudget) -> Any:
    """Compiling costs more than rendering a prompt; the meter lives outside the template,
    so one compiled template serves every rendering of the same text. (The budget is part
    of the key because jinja2 computes constant expressions while compiling.)"""
    from hookproof.templates._jinja_env import environment, prepare

    env = environment()
    tree = env.parse(text)
    _reject_loading(tree, name)
    return env.from_string(prepare(tree))


def _render(text: str, variables: Mapping[str, Any], meter: Meter) -> str:
    from hookproof.templates._jinja_env import metered

    with metered(meter):
        return str(_compiled(text, meter.template, meter.budget).render(**variables))


def render_jinja2(
    text: str, variables: Mapping[str, Any], name: str, budget: TemplateBudget
) -> str:
    import jinja2
    from jinja2.exceptions import SecurityError

    try:
        return _render(text, variables, Meter(budget, name))
    except TemplateError:
        raise
    except (SecurityError, OverflowError) as error:
        raise TemplateSecurityError(name, f"the sandbox refused: {error}") from None
    except jinja2.UndefinedError as error:
        if "unsafe" in str(error):
            raise TemplateSecurityError(name, f"the sandbox refused: {error}") from None
        missing = str(error).split("'")[1] if "'" in str(error) else None
        raise TemplateVariableError(
            name, f"undefined variable: {error}", variable=missing
        ) from None
    except jinja2.TemplateSyntaxError as error:
        raise TemplateSyntaxError(
            name, f"syntax error at line {error.lineno}: {error.message}"
        ) from None
    except jinja2.TemplateError as error:
        raise TemplateSyntaxError(name, f"{type(error).__name__}: {error}") from None
