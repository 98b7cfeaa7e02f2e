"""check_requires_approval: calls to gated tools never run without a human's yes.

Each gated tool is called in a run of its own; every interrupt the run raises is answered
with a rejection (or your ``on_interrupt``'s answer). The gate holds when the call paused for
review (and the rejected call did not run), or was refused outright; it is broken when the
tool's function ran, whether no review came first (a renamed tool the approval config still
names by its old name) or the review's rejection was ignored.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from hookproof._untimed import untimed
from hookproof.contracts._agent_checks import (
    _never_tried,
    _tiers_arg,
    _tool_objects,
    _unknown,
    watched_run,
)
from hookproof.contracts._args import example_args
from hookproof.contracts._report import CheckReport, Exercise, answer_to, executed_tools
from hookproof.contracts._scripts import call_once_then_done
from hookproof.contracts._subagents import Delegating, subagents_of
from hookproof.contracts._violation import violation
from hookproof.errors import UsageError
from hookproof.models import call
from hookproof.targets import Build, OnInterrupt, Target, TargetRun, as_target

__all__ = ["check_requires_approval"]


@untimed
def check_requires_approval(
    build: Build | Target,
    tools: Collection[str],
    *,
    context: Any = None,
    tiers: Sequence[str] | None = None,
    on_interrupt: OnInterrupt = "reject",
    config: Mapping[str, Any] | None = None,
    allow_untested: bool = False,
) -> CheckReport:
    """Every call to one of ``tools`` interrupts for review (or is refused) before the tool's
    function runs, and a rejected review keeps it from running. ``on_interrupt`` answers the
    reviews: "reject" (the default); a function for review formats of your own, which must
    answer with a rejection in that format; "approve" checks only that a review comes first."""
    __tracebackhide__ = True
    if isinstance(tools, str) or not tools:
        raise UsageError(
            f"hookproof: check_requires_approval takes a non-empty collection of tool names, "
            f"got {tools!r}. Example: check_requires_approval(build, ['refund'])."
        )
    exercise = Exercise("check_requires_approval", allow_untested=allow_untested)
    target = as_target(build, tiers)
    schemas, objects = target.tool_schemas(), _tool_objects(target)
    exercise.context(context)
    found: list[str] = []
    shown: TargetRun | None = None
    rejecting = on_interrupt != "approve"  # a function must answer with a rejection
    subagents: list[str] = []
    cases: list[tuple[str, str | None]] = [(name, None) for name in sorted(tools)]
    while cases:
        name, subagent = cases.pop(0)
        turn = call(name, example_args(schemas.get(name, {})))
        script = call_once_then_done(turn) if subagent is None else Delegating(subagent, turn)
        run, ran = watched_run(
            target, objects.get(name, []), name, context, script, on_interrupt, config
        )
        exercise.observe(run, ran=ran)
        if subagent is None:
            problems = _gate_problems(
                target, run, name, name in schemas, bool(ran), exercise, rejecting
            )
            if not subagents and (subagents := subagents_of(run)):
                cases += [(tool_name, sub) for sub in subagents for tool_name in sorted(tools)]
        else:
            problems = _subagent_gate_problems(run, name, subagent, bool(ran), rejecting)
        if shown is None and problems:
            shown = run
        found += problems
    counterexample = f"tools={sorted(tools)!r}, context={context!r}"
    if found:
        raise exercise.failed(
            violation(
                "check_requires_approval",
                invariant="a gated tool runs only after a human approved the call",
                counterexample=counterexample,
                found=found,
                fix="name every gated tool in the approval configuration by the name the model "
                "calls it (interrupt_on={...}), and let a rejection end the call",
                trace=shown.trace if shown is not None else None,
                replay=f"check_requires_approval(build, {sorted(tools)!r}, context={context!r}"
                f"{_tiers_arg(tiers)})",
            )
        )
    return exercise.passed(
        counterexample=counterexample,
        fix="name tools the agent has, and check a context for which the model is called",
    )


def _subagent_gate_problems(
    run: TargetRun, name: str, subagent: str, ran_outside: bool, rejecting: bool
) -> list[str]:
    if not (ran_outside or name in executed_tools(run)):
        return []
    return [f"through subagent {subagent!r}: {line}" for line in _ran(name, run, rejecting)]


def _ran(name: str, run: TargetRun, rejecting: bool) -> list[str]:
    """What it means that ``name`` ran: no review came first, or a rejection was ignored
    (after an approval, running is right)."""
    if run.interrupts_resumed == 0:
        return [f"{name} ran without any review: no interrupt came before it"]
    return [f"{name} ran although its review was answered with a rejection"] if rejecting else []


def _gate_problems(
    target: Target,
    run: TargetRun,
    name: str,
    registered: bool,
    ran_outside: bool,
    exercise: Exercise,
    rejecting: bool,
) -> list[str]:
    if ran_outside or name in executed_tools(run):
        return _ran(name, run, rejecting)
    answer = answer_to(run, name)
    if run.error is not None and not _unknown(target, str(run.error)):
        return [f"the run calling {name!r} raised {type(run.error).__name__}: {run.error}"]
    if _unknown(target, answer.text if answer else str(run.error or "")) and not registered:
        exercise.not_tried(f"{name}: not a tool of this agent (a misspelt name?)")
    elif run.interrupts_resumed == 0 and answer is None and (why := _never_tried(run, name)):
        exercise.not_tried(why)
    return []
