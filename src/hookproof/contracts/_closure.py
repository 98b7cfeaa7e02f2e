"""check_tool_closure: every tool shown to the model has an executor (a scripted call to it
runs). A run that shows no tool, or a call that never gets an answer, is not a pass."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hookproof._support.untimed import untimed
from hookproof.contracts._args import example_args
from hookproof.contracts._outcome import crash, never_tried, rejected, rejection, tiers_arg, unknown
from hookproof.contracts._report import CheckReport, Exercise, answer_to, executed_tools
from hookproof.contracts._runner import Runner
from hookproof.contracts._violation import violation
from hookproof.targets import Build, OnInterrupt, Target, TargetRun, as_target

__all__ = ["check_tool_closure"]

_CLOSURE = "every tool shown to the model can be executed"
_CLOSURE_FIX = (
    "a tool added in wrap_model_call needs a matching wrap_tool_call that sets request.tool "
    "(or register it in tools=)"
)


@untimed
def check_tool_closure(
    build: Build | Target,
    *,
    context: Any = None,
    tiers: Sequence[str] | None = None,
    on_interrupt: OnInterrupt = "approve",
    config: Mapping[str, Any] | None = None,
    allow_untested: bool = False,
) -> CheckReport:
    """Every tool visible in a FinalRequest has an executor: a scripted call to it executes.
    A run that shows no tool, or a call that never gets an answer, is not a pass."""
    __tracebackhide__ = True
    exercise = Exercise("check_tool_closure", allow_untested=allow_untested)
    runner = Runner(as_target(build, tiers), context, on_interrupt, config)
    first = runner.run()
    exercise.context(context)
    exercise.observe(first)
    if first.error is not None:
        raise exercise.failed(_did_not_run(runner.target, first, first.error, context))
    schemas = {
        r.tool(n).name: r.tool(n).parameters for r in first.final_requests for n in r.tool_names
    }
    if not schemas:
        exercise.not_tried(
            "no tool was shown to the model, so no executor could be tried"
            + (f" ({first.paused})" if first.paused else "")
        )
    found = [
        problem
        for name in sorted(schemas)
        if (problem := _closure(runner, name, schemas[name], exercise))
    ]
    if found:
        raise exercise.failed(
            violation(
                "check_tool_closure",
                invariant=_CLOSURE,
                counterexample=f"context={context!r}",
                found=found,
                fix=_CLOSURE_FIX,
                replay=f"check_tool_closure(build, context={context!r}{tiers_arg(tiers)})",
            )
        )
    return exercise.passed(
        counterexample=f"context={context!r}",
        fix="check a context that is shown tools, and let each call reach the tool step "
        "(answer interrupts with on_interrupt=..., give the agent a checkpointer)",
    )


def _refused_unexecutable(target: Target, error: BaseException) -> bool:
    """Whether ``error`` is the framework's own refusal to show a tool nothing executes."""
    text = f"{type(error).__name__}: {error}"
    return any(marker in text for marker in target.unexecutable_tool_markers)


def _did_not_run(target: Target, first: TargetRun, error: BaseException, context: Any) -> Any:
    refused = _refused_unexecutable(target, error)
    return violation(
        "check_tool_closure",
        invariant=_CLOSURE if refused else "the agent runs",
        counterexample=f"context={context!r}",
        found=[
            f"the framework refused to run: {crash(first)}"
            if refused
            else f"the run raised {crash(first)}"
        ],
        fix=_CLOSURE_FIX if refused else "make the agent run with a one-turn script first",
        trace=first.trace,
    )


def _closure(runner: Runner, name: str, schema: Any, exercise: Exercise) -> str | None:
    run = runner.call(name, example_args(schema))
    exercise.observe(run)
    executed = name in executed_tools(run)
    if run.error is not None:
        if executed and not unknown(runner.target, str(run.error)):
            return None  # the tool ran and raised: it has an executor
        return f"{name}: calling it failed before any executor ran: {crash(run)}"
    answer = answer_to(run, name)
    if answer is not None and unknown(runner.target, answer.text):
        return f"{name}: shown to the model but no executor ran it ({answer.text})"
    if rejected(answer):
        exercise.not_tried(rejection(name))
    elif answer is None and not executed:
        exercise.not_tried(
            never_tried(run, name)
            or f"{name}: the run ended without executing or answering the call"
        )
    return None
