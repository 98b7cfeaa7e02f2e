"""Compatibility aliases: every second name hookproof keeps for one object, in one table.

Each old name still resolves where it used to live (``hookproof.messages.AIMessage``) but
emits a DeprecationWarning naming the canonical name, and is in no module's ``__all__``.
Importing it from here (``from hookproof.compat import AIMessage``) gives the same object
without a warning, for code that wants the old name on purpose. A name with one meaning per
dialect (``DEFAULT_MAX_ITERATIONS``) is not importable from here: use the canonical name.

DIALECT_NAMES lists the second names that are canonical in one dialect (Eino's ``ToolInfo``):
they are not deprecated.

This module imports nothing from hookproof until an alias is looked up.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

__all__ = ["ALIASES", "DIALECT_NAMES", "Alias", "deprecated_alias", "deprecated_aliases"]


class Alias(NamedTuple):
    """``module.name`` is an old name of ``canonical`` (a dotted path); ``why`` it exists."""

    module: str
    name: str
    canonical: str
    why: str


_LC = "LangChain's name, kept for tests ported from LangChain"
_GO = "Eino's Go sentinel name, kept for readers of Eino code"
_DIALECT = "one name for two dialects' different defaults; each dialect now has its own"

ALIASES: tuple[Alias, ...] = (
    Alias("hookproof.messages", "AIMessage", "hookproof.messages.AssistantMessage", _LC),
    Alias("hookproof.messages", "HumanMessage", "hookproof.messages.UserMessage", _LC),
    Alias("hookproof.runtime", "AIMessage", "hookproof.runtime.AssistantMessage", _LC),
    Alias("hookproof.runtime", "HumanMessage", "hookproof.runtime.UserMessage", _LC),
    Alias(
        "hookproof.eino", "ErrExceedMaxIterations", "hookproof.eino.ExceedMaxIterationsError", _GO
    ),
    Alias("hookproof.eino", "ErrExceedMaxRetries", "hookproof.eino.ExceedMaxRetriesError", _GO),
    Alias("hookproof.eino", "BaseModel", "hookproof.eino.EinoChatModel", "shadowed pydantic's"),
    Alias(
        "hookproof.runtime",
        "DEFAULT_MAX_ITERATIONS",
        "hookproof.runtime.DEFAULT_RUNTIME_MAX_ITERATIONS",
        _DIALECT,
    ),
    Alias(
        "hookproof.eino",
        "DEFAULT_MAX_ITERATIONS",
        "hookproof.eino.DEFAULT_EINO_MAX_ITERATIONS",
        _DIALECT,
    ),
)


# Not deprecated: a dialect shows an object under the name its framework's users know, and
# that module exports no other name for it.
DIALECT_NAMES: tuple[Alias, ...] = (
    Alias("hookproof.eino", "ToolInfo", "hookproof.tools.ToolSchema", "Eino's schema.ToolInfo"),
)


def _resolve(dotted: str) -> Any:
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def deprecated_alias(module: str, name: str, *, callers: int = 1) -> Any:
    """The object an old name of ``module`` stands for, with a DeprecationWarning; for the
    ``__getattr__`` of the modules the aliases used to live in (``callers``: the frames
    between this call and the user's attribute access, so the warning names the user's
    line)."""
    for alias in ALIASES:
        if alias.module == module and alias.name == name:
            warnings.warn(
                f"hookproof: {module}.{name} is a deprecated alias ({alias.why}); use "
                f"{alias.canonical} instead. Every alias is listed in hookproof.compat.",
                DeprecationWarning,
                stacklevel=2 + callers,
            )
            return _resolve(alias.canonical)
    raise AttributeError(f"module {module!r} has no attribute {name!r}")


def deprecated_aliases(module: str) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``module``: its old names, each with a DeprecationWarning."""

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):  # the import system probes dunders; no alias is one
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        return deprecated_alias(module, name)

    return __getattr__


def __getattr__(name: str) -> Any:
    canonical = sorted({alias.canonical for alias in ALIASES if alias.name == name})
    objects = {id(found): found for found in map(_resolve, canonical)}
    if len(objects) == 1:
        return next(iter(objects.values()))
    if objects:
        raise AttributeError(
            f"hookproof: {name} has one meaning per dialect ({', '.join(canonical)}); "
            "import the one you mean by its canonical name."
        )
    raise AttributeError(f"module 'hookproof.compat' has no attribute {name!r}")
