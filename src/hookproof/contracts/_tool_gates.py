"""Named tools that must not run: excluded tools never (check_exclusion_holds), gated tools
never without a human's yes (check_requires_approval).

Both checks call each named tool in a run of its own, so one interrupt or error cannot hide
the others, and again through each subagent the ``task`` tool offers. They see a tool's own
function run even when a wrap hook calls it directly, outside the trace.

For approval, every interrupt is answered with a rejection (or your ``on_interrupt``'s
answer). The gate holds when the call paused for review (and the rejected call did not run),
or was refused outright; it is broken when the tool's function ran, whether no review came
first (a renamed tool the approval config still names by its old name) or the review's
rejection was ignored.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from hookproof._support.untimed import untimed
from hookproof.contracts._outcome import (
    crash,
    never_tried,
    rejected,
    rejection,
    tiers_arg,
    unknown,
)
from hookproof.contracts._report import CheckReport, Exercise, answer_to, executed_tools
from hookproof.contracts._runner import Runner, ToolCallRun
from hookproof.contracts._subagents import subagent_requests
from hookproof.contracts._tool_names import required_names
from hookproof.contracts._violation import violation
from hookproof.errors import safe_repr
from hookproof.targets import Build, OnInterrupt, Target, TargetRun, as_target

__all__ = ["check_exclusion_holds", "check_requires_approval"]


@untimed
def check_exclusion_holds(
    build: Build | Target,
    excluded: Collection[str],
    *,
    context: Any = None,
    tiers: Sequence[str] | None = None,
    on_interrupt: OnInterrupt = "approve",
    config: Mapping[str, Any] | None = None,
    allow_untested: bool = False,
) -> CheckReport:
    """Excluded tools never reach a FinalRequest, and a scripted call to one never executes,
    whatever the user's middleware does (re-adding included). Each excluded tool is called in
    a run of its own, so one interrupt or error cannot hide the others; interrupts are
    answered with ``on_interrupt`` and the run goes on."""
    __tracebackhide__ = True
    required_names(excluded, "check_exclusion_holds", "delete_customer")
    exercise = Exercise("check_exclusion_holds", allow_untested=allow_untested)
    runner = Runner(as_target(build, tiers), context, on_interrupt, config)
    exercise.context(context)
    found: list[str] = []
    shown: TargetRun | None = None  # the run whose trace the report shows
    for called in runner.each_tool_called(excluded):
        exercise.observe(called.run, ran=called.ran)
        problems = _exclusion_problems(runner.target, called, excluded, exercise)
        if shown is None and (problems or len(exercise.untested)):
            shown = called.run
        found += problems
    counterexample = f"excluded={sorted(excluded)!r}, context={context!r}"
    trace = shown.trace if shown is not None else None
    if found:
        raise exercise.failed(
            violation(
                "check_exclusion_holds",
                invariant="excluded tools are never shown to the model and never executed",
                counterexample=counterexample,
                found=found,
                fix="apply the exclusion after every middleware that can add tools (last in the "
                "stack) and refuse calls to excluded tools in wrap_tool_call"
                + _SUBAGENT_FIX
                * any(line.startswith("through subagent") for line in found),
                trace=trace,
                replay=f"check_exclusion_holds(build, {sorted(excluded)!r}, context={context!r}"
                f"{tiers_arg(tiers)})",
            )
        )
    return exercise.passed(
        counterexample=counterexample,
        fix="let the call reach the tool step: answer the agent's interrupts the way it "
        "expects (on_interrupt='approve' or a function of the interrupt value), name tools "
        "the agent has, or check a context for which the agent calls the model",
        trace=trace,
    )


_SUBAGENT_FIX = (
    "; a subagent runs with its own tools and middleware (deepagents' default general-purpose "
    "subagent has every tool of the main agent and none of its middleware): give it the same "
    "filter, or tools without the excluded ones (subagents=[{'name': 'general-purpose', ..., "
    "'middleware': [...]}])"
)


def _exclusion_problems(
    target: Target, called: ToolCallRun, excluded: Collection[str], exercise: Exercise
) -> list[str]:
    if called.subagent is not None:
        return _through_subagent(called, excluded)
    run, name, ran = called.run, called.name, called.ran
    found = [
        f"run calling {name!r}: model call {index} was shown excluded tool(s) {shown}"
        for index, request in enumerate(run.final_requests)
        if (shown := sorted(set(request.tool_names) & set(excluded)))
    ]
    executed = sorted((executed_tools(run) | ran) & set(excluded))
    if executed:
        untraced = " (its function ran outside the tool step)" if ran - executed_tools(run) else ""
        found.append(
            f"excluded tool(s) {executed} executed when the model called {name!r}{untraced}"
        )
    return found or _answer_problems(target, called, exercise)


def _answer_problems(target: Target, called: ToolCallRun, exercise: Exercise) -> list[str]:
    """What the answer to a call to excluded ``name`` shows (a success answer counts only
    where the target's tool answers carry a status: a refusal cannot say it failed
    otherwise)."""
    run, name = called.run, called.name
    answer = answer_to(run, name)
    refused_as_unknown = unknown(target, answer.text if answer else str(run.error or ""))
    if refused_as_unknown and not called.registered:
        exercise.not_tried(
            f"{name}: not a tool of this agent, so the call was refused as unknown and no "
            "exclusion was tried (a misspelt name? a tool only a subagent has?)"
        )
    elif run.error is not None and not refused_as_unknown:
        return [f"the run calling {name!r} raised {crash(run)} (it may have run)"]
    elif rejected(answer):
        exercise.not_tried(rejection(name))
    elif answer is None and (reason := never_tried(run, name)):
        exercise.not_tried(reason)
    elif answer is not None and answer.status == "success" and target.tool_answers_carry_status:
        return [
            f"the call to excluded tool {name!r} was answered with a success "
            f"({safe_repr(answer.text, 80)}), as if it ran; a refusal answers with status='error'"
        ]
    return []


def _through_subagent(called: ToolCallRun, excluded: Collection[str]) -> list[str]:
    """What a call to ``name`` made inside the subagent shows of excluded tools."""
    run, name = called.run, called.name
    where = f"through subagent {called.subagent!r}"
    found = [
        f"{where}: its model call was shown excluded tool(s) {shown}"
        for request in subagent_requests(run)
        if (shown := sorted(set(request.tool_names) & set(excluded)))
    ][:1]
    executed = sorted((executed_tools(run) | called.ran) & set(excluded))
    if executed:
        found.append(f"{where}: excluded tool(s) {executed} executed when it called {name!r}")
    if run.error is not None and not found:
        found.append(f"{where}: the run calling {name!r} raised {crash(run)} (it may have run)")
    return found


# -- check_requires_approval ---------------------------------------------------------------


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
    required_names(tools, "check_requires_approval", "refund")
    exercise = Exercise("check_requires_approval", allow_untested=allow_untested)
    runner = Runner(as_target(build, tiers), context, on_interrupt, config)
    exercise.context(context)
    found: list[str] = []
    shown: TargetRun | None = None
    rejecting = on_interrupt != "approve"  # a function must answer with a rejection
    for called in runner.each_tool_called(tools):
        exercise.observe(called.run, ran=called.ran)
        problems = _gate_problems(runner.target, called, exercise, rejecting)
        if shown is None and problems:
            shown = called.run
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
                f"{tiers_arg(tiers)})",
            )
        )
    return exercise.passed(
        counterexample=counterexample,
        fix="name tools the agent has, and check a context for which the model is called",
    )


def _ran(name: str, run: TargetRun, rejecting: bool) -> list[str]:
    """What it means that ``name`` ran: no review came first, or a rejection was ignored
    (after an approval, running is right)."""
    if run.interrupts_resumed == 0:
        return [f"{name} ran without any review: no interrupt came before it"]
    return [f"{name} ran although its review was answered with a rejection"] if rejecting else []


def _gate_problems(
    target: Target, called: ToolCallRun, exercise: Exercise, rejecting: bool
) -> list[str]:
    run, name = called.run, called.name
    if called.ran or name in executed_tools(run):
        where = "" if called.subagent is None else f"through subagent {called.subagent!r}: "
        return [f"{where}{line}" for line in _ran(name, run, rejecting)]
    if called.subagent is not None:
        return []
    answer = answer_to(run, name)
    if run.error is not None and not unknown(target, str(run.error)):
        return [f"the run calling {name!r} raised {type(run.error).__name__}: {run.error}"]
    if unknown(target, answer.text if answer else str(run.error or "")) and not called.registered:
        exercise.not_tried(f"{name}: not a tool of this agent (a misspelt name?)")
    elif run.interrupts_resumed == 0 and answer is None and (why := never_tried(run, name)):
        exercise.not_tried(why)
    return []
