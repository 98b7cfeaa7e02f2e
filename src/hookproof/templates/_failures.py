"""Python errors raised while rendering become template errors that name the template."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NoReturn

from hookproof.errors import HookproofError, TemplateRenderError, TemplateSecurityError
from hookproof.templates._budget import TemplateBudget

__all__ = ["render_guarded", "variable_text"]

# What a template's own expression (or a variable's __str__) raises when it is wrong; with
# AssertionError, which jinja2's own filters raise on bad arguments (``truncate`` with an
# ``end`` longer than its length), and NameError, which a number literal too large for a float
# raises (jinja2 compiles ``1e400`` to the name ``inf``).
_EXPRESSION_FAILURES = (
    ArithmeticError,
    LookupError,
    TypeError,
    ValueError,
    AttributeError,
    AssertionError,
    NameError,
)


def _template_line(error: BaseException) -> str:
    """`` at line N`` from the traceback jinja2 rewrites to point into the template."""
    line, frame = None, error.__traceback__
    while frame is not None:
        if frame.tb_frame.f_code.co_filename == "<template>":
            line = frame.tb_lineno
        frame = frame.tb_next
    return f" at line {line}" if line else ""


def _too_deep(name: str, budget: TemplateBudget, error: RecursionError) -> NoReturn:
    raise TemplateSecurityError(
        name,
        f"the template, or a value it prints, nests deeper than Python can follow "
        f"(RecursionError{_template_line(error)}); a self-containing value or thousands of "
        f"nested blocks cannot render. Flatten it (budget max_depth={budget.max_depth}).",
    ) from None


def _expression_failed(name: str, error: Exception) -> NoReturn:
    if "integer string conversion" in str(error):
        raise TemplateSecurityError(
            name,
            f"an integer too long to print{_template_line(error)} ({error}); keep integers "
            "within the template budget max_int_bits.",
        ) from None
    if isinstance(error, NameError) and error.name in ("inf", "nan"):
        raise TemplateRenderError(
            name,
            f"a number literal too large for a float{_template_line(error)} (it would be "
            f"{error.name}); write a smaller number.",
        ) from None
    raise TemplateRenderError(
        name,
        f"rendering raised {type(error).__name__}: {error}{_template_line(error)}; fix the "
        "template's expression or the variable it uses.",
    ) from error


def render_guarded(
    render: Callable[[str, Mapping[str, Any], str, TemplateBudget], str],
    text: str,
    variables: Mapping[str, Any],
    name: str,
    budget: TemplateBudget,
) -> str:
    try:
        return render(text, variables, name, budget)
    except HookproofError:
        raise
    except RecursionError as error:
        _too_deep(name, budget, error)
    except MemoryError:
        raise TemplateSecurityError(
            name,
            "rendering ran out of memory building one value; lower the template budget "
            "max_output_chars so such values are refused before they are built.",
        ) from None
    except _EXPRESSION_FAILURES as error:
        _expression_failed(name, error)


def variable_text(value: Any, field: str, name: str, to_text: Callable[[Any], str]) -> str:
    """``to_text(value)``; a variable whose text cannot be made is an error naming it."""
    try:
        return to_text(value)
    except HookproofError:
        raise
    except _EXPRESSION_FAILURES as error:
        if "integer string conversion" in str(error):
            _expression_failed(name, error)
        raise TemplateRenderError(
            name,
            f"variable {field} could not be printed: {type(error).__name__}: {error}; give "
            "the template text, numbers or data whose str() works.",
            variable=field,
        ) from error
