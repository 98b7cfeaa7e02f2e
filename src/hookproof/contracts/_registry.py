"""The one list of contract checks: each check's name and the ``"module:function"`` that
defines it, loaded on first use so importing ``hookproof.contracts`` loads no check.

``hookproof.contracts`` exports every check listed here (its ``__all__`` and attributes come
from this table), and whatever lists the checks reads it. A new check is one module and
one entry here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from hookproof._support.untimed import untimed_section
from hookproof.errors import InvalidInputError, did_you_mean

__all__ = ["CHECKS", "check_names", "load_check"]

CHECKS: dict[str, str] = {
    "check_allowed_calls_succeed": "hookproof.contracts._allowed_calls:check_allowed_calls_succeed",
    "check_bounded_retry": "hookproof.contracts._bounded_retry:check_bounded_retry",
    "check_delegation_contained": "hookproof.contracts._delegation:check_delegation_contained",
    "check_exclusion_holds": "hookproof.contracts._tool_gates:check_exclusion_holds",
    "check_fail_closed": "hookproof.contracts._fail_closed:check_fail_closed",
    "check_hook_order": "hookproof.contracts._trace_checks:check_hook_order",
    "check_injected_model_used": "hookproof.contracts._injected_model:check_injected_model_used",
    "check_isolation": "hookproof.contracts._isolation:check_isolation",
    "check_metadata_preserved": "hookproof.contracts._metadata_preserved:check_metadata_preserved",
    "check_request_not_mutated": (
        "hookproof.contracts._request_not_mutated:check_request_not_mutated"
    ),
    "check_requires_approval": "hookproof.contracts._tool_gates:check_requires_approval",
    "check_role_matrix": "hookproof.contracts._role_matrix:check_role_matrix",
    "check_tool_closure": "hookproof.contracts._closure:check_tool_closure",
    "check_tool_errors_surface": "hookproof.contracts._tool_errors:check_tool_errors_surface",
    "check_tools_preserved": "hookproof.contracts._tools_preserved:check_tools_preserved",
    "check_unique_tool_names": "hookproof.contracts._trace_checks:check_unique_tool_names",
}


def check_names() -> list[str]:
    """Every registered check, by name."""
    return sorted(CHECKS)


def load_check(name: str) -> Callable[..., Any]:
    """The check registered as ``name`` (its module is imported now, outside any hypothesis
    deadline); an unknown name is an InvalidInputError naming the checks there are."""
    if name not in CHECKS:
        raise InvalidInputError(
            f"hookproof: there is no contract check {name!r}.{did_you_mean(name, check_names())} "
            f"The checks: {check_names()}."
        )
    path = CHECKS[name]
    loaded = _LOADED.get(path)  # a property test looks its check up once per example
    if loaded is not None:
        return loaded
    module, _, function = path.partition(":")
    # The first use may come inside a hypothesis example: importing is hookproof's time too.
    with untimed_section(name):
        check: Callable[..., Any] = getattr(importlib.import_module(module), function)
    _LOADED[path] = check
    return check


_LOADED: dict[str, Callable[..., Any]] = {}
