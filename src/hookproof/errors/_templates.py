"""Errors of prompt templates: each names the template and, where there is one, the variable."""

from __future__ import annotations

from hookproof.errors._base import HookproofError, InvalidInputError

# -- templates ------------------------------------------------------------------------------


class TemplateError(HookproofError):
    """A template could not be rendered."""

    def __init__(self, template: str, problem: str, *, variable: str | None = None) -> None:
        self.template = template
        self.variable = variable
        super().__init__(f"hookproof: template {template}: {problem}")


class TemplateVariableError(TemplateError, KeyError):
    """A variable is missing, or has a type the template cannot use."""

    def __str__(self) -> str:
        return str(self.args[0])


class TemplateSyntaxError(TemplateError, InvalidInputError):
    """The template text itself is malformed."""


class UnsupportedTemplateConstruct(TemplateSyntaxError):
    """The template uses a construct outside the supported subset."""


class TemplateRenderError(TemplateError, InvalidInputError):
    """Rendering raised: an expression of the template failed (``1/0``, ``'a' + 1``, a format
    call missing arguments) or a variable could not be turned into text."""


class TemplateSecurityError(TemplateError):
    """A template reached beyond data (the Jinja2 sandbox, the Go subset's field access) or
    beyond its TemplateBudget (output, loop iterations, integer size, nesting depth)."""
