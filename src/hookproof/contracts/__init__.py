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
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from hookproof import targets
from hookproof.contracts._agent_checks import (
    check_exclusion_holds,
    check_fail_closed,
    check_injected_model_used,
    check_tool_closure,
)
from hookproof.contracts._approval import check_requires_approval
from hookproof.contracts._args import example_args
from hookproof.contracts._isolation import check_isolation
from hookproof.contracts._middleware_checks import (
    check_bounded_retry,
    check_metadata_preserved,
    check_request_not_mutated,
    check_tool_errors_surface,
    sample_messages,
    sample_request,
    sample_state,
    sample_system_message,
)
from hookproof.contracts._report import CheckReport, UntestedError
from hookproof.contracts._tool_checks import check_allowed_calls_succeed, check_tools_preserved
from hookproof.contracts._trace_checks import check_hook_order, check_unique_tool_names
from hookproof.contracts._violation import ContractViolation
from hookproof.targets import OnInterrupt, Target, TargetRun, as_target

if TYPE_CHECKING:
    from hookproof.targets import ReferenceTarget

__all__ = [
    "CheckReport",
    "ContractViolation",
    "OnInterrupt",
    "ReferenceTarget",
    "Target",
    "TargetRun",
    "UntestedError",
    "as_target",
    "check_allowed_calls_succeed",
    "check_bounded_retry",
    "check_exclusion_holds",
    "check_fail_closed",
    "check_hook_order",
    "check_injected_model_used",
    "check_isolation",
    "check_metadata_preserved",
    "check_request_not_mutated",
    "check_requires_approval",
    "check_tool_closure",
    "check_tool_errors_surface",
    "check_tools_preserved",
    "check_unique_tool_names",
    "example_args",
    "sample_messages",
    "sample_request",
    "sample_state",
    "sample_system_message",
    "strategies",
]


def __getattr__(name: str) -> Any:
    if name == "strategies":
        return importlib.import_module("hookproof.contracts.strategies")
    if name == "ReferenceTarget":  # the reference target's module loads on first use
        return targets.ReferenceTarget
    raise AttributeError(f"module 'hookproof.contracts' has no attribute {name!r}")
