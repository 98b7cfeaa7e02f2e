"""Names a package exports but loads on first use, so importing the package stays cheap.

A package lists where each public name lives (``origins``), imports those modules for type
checkers only, and answers the first lookup of a name from its module ``__getattr__`` with
``load``. ``from package import name``, ``import *`` and ``dir()`` behave as with eager
imports; only the moment the submodule is imported changes.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing itself costs a package's import several ms; mypy sees True
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def origins(groups: Mapping[str, tuple[str, ...]]) -> dict[str, str]:
    """``{name: module}`` from ``{module: (name, ...)}``; a name listed twice is an error."""
    table: dict[str, str] = {}
    for module, names in groups.items():
        for name in names:
            if name in table:
                raise ValueError(f"{name!r} is exported from {table[name]} and {module}")
            table[name] = module
    return table


def load(namespace: dict[str, Any], module: str, name: str) -> Any:
    """``module.name``, kept in the package's namespace so later lookups skip ``__getattr__``."""
    value = getattr(importlib.import_module(module), name)
    namespace[name] = value
    return value
