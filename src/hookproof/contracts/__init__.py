"""Property-based contracts for agent middleware.

Each ``check_*`` raises ContractViolation (an AssertionError) that states the invariant, the
counterexample, a trace excerpt, the fix and a replay snippet. Use them in plain tests or in
hypothesis tests with ``hookproof.contracts.strategies`` (imported on first use: it needs
hypothesis). Agent checks take your factory ``build(model) -> agent``; pass
``tiers=("fast", "reasoning")`` to receive a dict of models instead, for routers.

Every check returns a CheckReport of what it exercised. What it could not exercise (a call
that never got an answer, a middleware with nothing to check) raises UntestedError, a
ContractViolation, unless ``allow_untested=True``. Runs that pause at an interrupt are
resumed with ``on_interrupt`` ("approve" by default, "reject", or a function of the value).

The checks are listed in ``hookproof.contracts._registry``; each loads on first use.
"""

from __future__ import annotations

import importlib

from hookproof.contracts._registry import CHECKS, load_check

TYPE_CHECKING = False  # typing itself costs the import several ms; mypy sees True
if TYPE_CHECKING:
    from typing import Any

    # For type checkers only: at run time every name below loads on first use.
    from hookproof.contracts import strategies as strategies
    from hookproof.contracts._allowed_calls import (
        check_allowed_calls_succeed as check_allowed_calls_succeed,
    )
    from hookproof.contracts._args import example_args as example_args
    from hookproof.contracts._bounded_retry import check_bounded_retry as check_bounded_retry
    from hookproof.contracts._closure import check_tool_closure as check_tool_closure
    from hookproof.contracts._delegation import (
        check_delegation_contained as check_delegation_contained,
    )
    from hookproof.contracts._fail_closed import check_fail_closed as check_fail_closed
    from hookproof.contracts._injected_model import (
        check_injected_model_used as check_injected_model_used,
    )
    from hookproof.contracts._isolation import check_isolation as check_isolation
    from hookproof.contracts._metadata_preserved import (
        check_metadata_preserved as check_metadata_preserved,
    )
    from hookproof.contracts._report import CheckReport as CheckReport
    from hookproof.contracts._report import ToolAccess as ToolAccess
    from hookproof.contracts._request_not_mutated import (
        check_request_not_mutated as check_request_not_mutated,
    )
    from hookproof.contracts._role_matrix import check_role_matrix as check_role_matrix
    from hookproof.contracts._tool_errors import (
        check_tool_errors_surface as check_tool_errors_surface,
    )
    from hookproof.contracts._tool_gates import check_exclusion_holds as check_exclusion_holds
    from hookproof.contracts._tool_gates import check_requires_approval as check_requires_approval
    from hookproof.contracts._tools_preserved import check_tools_preserved as check_tools_preserved
    from hookproof.contracts._trace_checks import check_hook_order as check_hook_order
    from hookproof.contracts._trace_checks import (
        check_unique_tool_names as check_unique_tool_names,
    )
    from hookproof.errors import ContractViolation as ContractViolation
    from hookproof.errors import UntestedError as UntestedError
    from hookproof.targets import OnInterrupt as OnInterrupt
    from hookproof.targets import ReferenceTarget as ReferenceTarget
    from hookproof.targets import Target as Target
    from hookproof.targets import TargetRun as TargetRun
    from hookproof.targets import as_target as as_target
    from hookproof.targets.samples import sample_messages as sample_messages
    from hookproof.targets.samples import sample_request as sample_request
    from hookproof.targets.samples import sample_state as sample_state
    from hookproof.targets.samples import sample_system_message as sample_system_message

# What the package exports besides the checks, by the module that defines it.
_HELPERS = {
    "CheckReport": "hookproof.contracts._report",
    "ContractViolation": "hookproof.errors",
    "OnInterrupt": "hookproof.targets",
    "ReferenceTarget": "hookproof.targets",
    "Target": "hookproof.targets",
    "TargetRun": "hookproof.targets",
    "ToolAccess": "hookproof.contracts._report",
    "UntestedError": "hookproof.errors",
    "as_target": "hookproof.targets",
    "example_args": "hookproof.contracts._args",
    "sample_messages": "hookproof.targets.samples",
    "sample_request": "hookproof.targets.samples",
    "sample_state": "hookproof.targets.samples",
    "sample_system_message": "hookproof.targets.samples",
}

__all__ = sorted([*_HELPERS, *CHECKS, "strategies"])


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def __getattr__(name: str) -> Any:
    # Checks are looked up in the registry on every access (not kept here), so the registry
    # stays the one list of what this package exports.
    if name in CHECKS:
        return load_check(name)
    if name in _HELPERS:
        return getattr(importlib.import_module(_HELPERS[name]), name)
    if name == "strategies":  # needs hypothesis
        return importlib.import_module("hookproof.contracts.strategies")
    raise AttributeError(f"module 'hookproof.contracts' has no attribute {name!r}")
