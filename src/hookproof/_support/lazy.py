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
    from collections.abc import Callable, Mapping
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


def exports(
    namespace: dict[str, Any],
    table: Mapping[str, str],
    otherwise: Callable[[str], Any] | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a package whose names (``table``, from
    ``origins``) load on first use; a name it does not export goes to ``otherwise`` (an old
    name's warning, say) or is an AttributeError."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is not None:
            return load(namespace, module, name)
        if otherwise is None or name.startswith("__"):  # the import system probes dunders
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        return otherwise(name)

    def __dir__() -> list[str]:
        return sorted({*namespace, *table})

    return __getattr__, __dir__
