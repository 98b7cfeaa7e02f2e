"""ContractViolation: an assertion failure that explains itself and shows how to replay it."""

from __future__ import annotations

from collections.abc import Sequence

from hookproof._support.docs import docs_link
from hookproof.contracts._registry import CHECKS
from hookproof.errors import ContractViolation
from hookproof.trace import Trace

__all__ = ["ContractViolation", "explained_at", "violation"]


def excerpt(trace: Trace | None, *, limit: int = 40) -> str:
    if trace is None or not len(trace):
        return "  (no trace)"
    lines = trace.format().split("\n")
    shown = lines[:limit] + (
        [f"  ... {len(lines) - limit} more events"] if len(lines) > limit else []
    )
    return "\n".join(f"  {line}" for line in shown)


def explained_at(check: str) -> str:
    """The documentation of ``check``: its section of the checks reference when it is one of
    hookproof's, else the page on contracts."""
    if check in CHECKS:
        return docs_link("reference/checks.md", check)
    return docs_link("concepts/contracts.md")


def _indented(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.split("\n"))


def violation(
    check: str,
    *,
    invariant: str,
    counterexample: str,
    found: Sequence[str],
    fix: str,
    trace: Trace | None = None,
    replay: str | None = None,
    table: str | None = None,
) -> ContractViolation:
    """Build the violation; raise it from the check (``__tracebackhide__`` keeps it short)."""
    parts = [
        f"hookproof: contract {check} does not hold.",
        f"Invariant: {invariant}",
        f"Counterexample: {counterexample}",
        "Found:",
        *(f"  - {line}" for line in found),
        *(
            ["Tool access (visible or hidden / runs or refused):", _indented(table)]
            if table
            else []
        ),
        f"Fix: {fix} (docs: {explained_at(check)})",
    ]
    if trace is not None:
        parts += ["Trace excerpt:", excerpt(trace)]
    if replay:
        name = check.removeprefix("check_")
        snippet = [f"def test_replay_{name}():", *(f"    {line}" for line in replay.split("\n"))]
        parts += ["Replay (pytest; `build` is your factory):", *(f"    {line}" for line in snippet)]
    return ContractViolation("\n".join(parts), check=check, counterexample=counterexample)
