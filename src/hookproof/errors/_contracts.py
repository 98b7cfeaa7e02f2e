"""Errors of contract checks: a violated contract, one that could not be exercised."""

from __future__ import annotations

from hookproof.errors._base import HookproofError, redacted

TYPE_CHECKING = False  # typing itself costs `import hookproof` several ms; mypy sees True
if TYPE_CHECKING:
    from typing import Any


class ContractViolation(HookproofError, AssertionError):
    """A contract does not hold. The message gives the invariant, the counterexample, a trace
    excerpt, how to fix it, and a snippet that replays the case. ``engine`` says where a check
    that chooses its engine found it (``"reference, confirmed on the real graph"`` or
    ``"graph"``); None for the others."""

    engine: str | None = None

    def __init__(self, message: str, *, check: str, counterexample: str) -> None:
        super().__init__(message)
        self.check = check
        self.counterexample = redacted(counterexample)


class UntestedError(ContractViolation):
    """A check could not exercise what it promises, so it fails instead of passing.
    ``report`` (a hookproof.contracts.CheckReport) is what it did exercise;
    ``report.untested`` what it could not."""

    # ``report`` is typed Any so this module, which every part imports, imports no contracts.
    def __init__(self, message: str, *, check: str, counterexample: str, report: Any):
        super().__init__(message, check=check, counterexample=counterexample)
        self.report = report


class UnsupportedHypothesisError(HookproofError, RuntimeError):
    """A check ran inside a hypothesis example with a deadline, but the installed hypothesis
    gives hookproof no way to keep the check's run time out of that deadline."""


class EngineDisagreementError(HookproofError, AssertionError):
    """A check ran an example on the reference engine (the app's framework code through a
    bridge) and on the framework's real graph, and the two verdicts differ: neither is
    reported, since trusting either could be a false pass or a spurious violation.
    ``check`` names the check, ``counterexample`` the example."""

    def __init__(self, message: str, *, check: str, counterexample: str) -> None:
        super().__init__(message)
        self.check = check
        self.counterexample = redacted(counterexample)
