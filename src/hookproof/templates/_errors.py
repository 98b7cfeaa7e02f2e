"""Template errors: every one names the template and, where there is one, the variable."""

from __future__ import annotations

from hookproof.errors import HookproofError, InvalidInputError

__all__ = [
    "TemplateError",
    "TemplateSecurityError",
    "TemplateSyntaxError",
    "TemplateVariableError",
    "UnsupportedTemplateConstruct",
]


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


class TemplateSecurityError(TemplateError):
    """A Jinja2 template tried something the sandbox forbids."""
