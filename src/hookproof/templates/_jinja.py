"""Jinja2 templates in jinja2's sandbox with StrictUndefined; include, extends, import and
from are rejected before rendering, and sandbox violations become TemplateSecurityError."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from hookproof.templates._errors import (
    TemplateError,
    TemplateSecurityError,
    TemplateSyntaxError,
    TemplateVariableError,
    UnsupportedTemplateConstruct,
)

__all__ = ["render_jinja2"]


@cache
def _environment() -> Any:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    # Immutable: a template must not change the caller's lists and dicts (items.pop()).
    return ImmutableSandboxedEnvironment(
        undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True
    )


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


def render_jinja2(text: str, variables: Mapping[str, Any], name: str) -> str:
    import jinja2
    from jinja2.exceptions import SecurityError

    environment = _environment()
    try:
        _reject_loading(environment.parse(text), name)
        return str(environment.from_string(text).render(**variables))
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
