"""Template errors: every one names the template and, where there is one, the variable.

They live in hookproof.errors with every other hookproof exception; this module re-exports
them for the template modules.
"""

from __future__ import annotations

from hookproof.errors import (
    TemplateError,
    TemplateRenderError,
    TemplateSecurityError,
    TemplateSyntaxError,
    TemplateVariableError,
    UnsupportedTemplateConstruct,
)

__all__ = [
    "TemplateError",
    "TemplateRenderError",
    "TemplateSecurityError",
    "TemplateSyntaxError",
    "TemplateVariableError",
    "UnsupportedTemplateConstruct",
]
