"""The run context of an Eino run: Go's context.Context, immutable, with values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookproof._support.frozen import FrozenDict
from hookproof.eino._exec import RunExec
from hookproof.errors import ImmutableError, UsageError

__all__ = ["RunContext"]

# -- the run context ------------------------------------------------------------------------


class RunContext:
    """Eino's ``ctx``: immutable values passed from hook to hook and into the run.

    ``with_value`` returns a new context; the original keeps what it had. A context handed to
    a hook during a run also carries that run, which is what ``set_run_local_value`` and
    ``send_event`` need.
    """

    __slots__ = ("_exec", "_values")
    __hookproof_injected_context__ = True  # a @tool parameter annotated RunContext gets ctx
    _values: FrozenDict
    _exec: RunExec | None

    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        object.__setattr__(self, "_values", FrozenDict(values or {}))
        object.__setattr__(self, "_exec", None)

    def with_value(self, key: str, value: Any) -> RunContext:
        """A new context that also holds ``key`` (replacing an earlier value of it)."""
        if not isinstance(key, str):
            raise UsageError(f"hookproof: RunContext keys are str, got {type(key).__name__}.")
        return self._derive({**self._values, key: value}, self._exec)

    def value(self, key: str, default: Any = None) -> Any:
        return self._values.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._values

    @property
    def values(self) -> FrozenDict:
        return self._values

    def _derive(self, values: Mapping[str, Any], run: RunExec | None) -> RunContext:
        new = object.__new__(RunContext)
        object.__setattr__(
            new, "_values", values if type(values) is FrozenDict else FrozenDict(values)
        )
        object.__setattr__(new, "_exec", run)
        return new

    def _bound(self, run: RunExec | None) -> RunContext:
        return self if self._exec is run else self._derive(self._values, run)

    def __setattr__(self, name: str, value: Any) -> None:
        raise ImmutableError(
            "hookproof: a RunContext cannot be changed; use ctx = ctx.with_value(key, value) "
            "and return the new context from the hook."
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunContext) and self._values == other._values

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._values)))

    def __repr__(self) -> str:
        return f"RunContext({dict(self._values)!r})"
