"""check_injected_model_used: a falsy but valid injected model is still the one called."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hookproof._support.untimed import untimed
from hookproof.contracts._outcome import crash, tiers_arg
from hookproof.contracts._report import CheckReport, Exercise
from hookproof.contracts._violation import violation
from hookproof.targets import Build, as_target

__all__ = ["check_injected_model_used"]


@untimed
def check_injected_model_used(
    build: Build,
    *,
    context: Any = None,
    tiers: Sequence[str] | None = None,
    config: Mapping[str, Any] | None = None,
    allow_untested: bool = False,
) -> CheckReport:
    """A falsy but valid injected model is still the one called (in a run for ``context``)."""
    __tracebackhide__ = True
    exercise = Exercise("check_injected_model_used", allow_untested=allow_untested)
    target = as_target(build, tiers)
    run = target.run(models=target.falsy_models(), context=context, config=config)
    exercise.context(context)
    exercise.observe(run)
    if run.called:
        return exercise.passed(counterexample="a falsy injected model", fix="")
    raise exercise.failed(
        violation(
            "check_injected_model_used",
            invariant="the injected model is used even when it is falsy",
            counterexample="an injected model whose __bool__ returns False",
            found=[
                "none of the injected models received a request"
                + (f"; the run raised {crash(run)}" if run.error else "")
            ],
            fix="test injected dependencies with `is not None`, never with `or` or `if model:`",
            trace=run.trace,
            replay=f"check_injected_model_used(build{tiers_arg(tiers)})",
        )
    )
