"""Checks that build and run the user's agent: fail closed, exclusion, tool closure,
injected model."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence, Set
from typing import Any

from hookproof._untimed import untimed
from hookproof.contracts._args import example_args
from hookproof.contracts._observe import watching
from hookproof.contracts._report import (
    CheckReport,
    Exercise,
    answer_to,
    attempted_calls,
    executed_tools,
)
from hookproof.contracts._scripts import call_once_then_done
from hookproof.contracts._subagents import Delegating, subagent_requests, subagents_of
from hookproof.contracts._violation import violation
from hookproof.errors import UsageError, safe_repr
from hookproof.messages import ToolMessage
from hookproof.models import call
from hookproof.targets import Build, OnInterrupt, Target, TargetRun, as_target
from hookproof.targets.interrupts import REJECTION

__all__ = [
    "check_exclusion_holds",
    "check_fail_closed",
    "check_injected_model_used",
    "check_tool_closure",
]


def _tiers_arg(tiers: Sequence[str] | None) -> str:
    return f", tiers={tuple(tiers)!r}" if tiers else ""


def _crash(run: TargetRun) -> str:
    error = run.error
    return f"{type(error).__name__}: {error}" if error is not None else ""


def _unknown(target: Target, text: str) -> bool:
    """Whether ``text`` (a tool answer or an error) is the target's "no such tool"."""
    return any(marker in text for marker in target.unknown_tool_markers)


def _never_tried(run: TargetRun, name: str) -> str | None:
    """Why the scripted call to ``name`` was never put to the agent's tool step, or None
    when it was (it was answered, or the run went on past it without pausing)."""
    if run.paused is not None:
        return f"{name}: the call was never answered: {run.paused}"
    if not run.final_requests:
        return f"{name}: the model was never called, so the call was never made"
    if name not in [call.name for call in attempted_calls(run)]:
        return f"{name}: the model's call to it never reached the run's history"
    return None


def _rejected(answer: ToolMessage | None) -> bool:
    return answer is not None and REJECTION in answer.text


def _rejection(name: str) -> str:
    return (
        f"{name}: the call was answered by rejecting the human review (on_interrupt="
        "'reject'), so what the agent does with an approved call was not tried"
    )


@untimed
def check_fail_closed(
    build: Build | Target,
    context: Any,
    *,
    least_privileged_context: Any,
    tiers: Sequence[str] | None = None,
    script: Any = None,
    on_interrupt: OnInterrupt = "approve",
    config: Mapping[str, Any] | None = None,
    allow_untested: bool = False,
) -> CheckReport:
    """An untrusted, unknown, malformed or missing context never gets more tools, or another
    model, than the least-privileged trusted context; a crash is a violation too. The
    least-privileged run must reach the model, or there is nothing to compare with."""
    __tracebackhide__ = True
    exercise = Exercise("check_fail_closed", allow_untested=allow_untested)
    target = as_target(build, tiers)
    baseline, fresh = _baseline(
        build, target, least_privileged_context, tiers, script, on_interrupt, config
    )
    exercise.context(least_privileged_context)
    if fresh:
        exercise.observe(baseline)
    if baseline.error is not None:
        raise exercise.failed(
            violation(
                "check_fail_closed",
                invariant="the least-privileged trusted context runs without error",
                counterexample=f"least_privileged_context={least_privileged_context!r}",
                found=[f"the baseline run raised {_crash(baseline)}"],
                fix="make the agent run for its least-privileged context first",
            )
        )
    if not baseline.final_requests:
        exercise.not_tried(
            "the least-privileged run never called the model, so there are no tools or "
            "models to compare the untrusted run with"
            + (f" ({baseline.paused})" if baseline.paused else "")
        )
    run = target.run(context=context, script=script, on_interrupt=on_interrupt, config=config)
    exercise.context(context)
    exercise.observe(run)
    if run.paused is not None:
        exercise.not_tried(f"the run for context={context!r} {run.paused.removeprefix('the run ')}")
    found = _privilege_gain(baseline, run)
    for subagent in [] if found else subagents_of(run):
        delegate = Delegating(subagent, "done")
        least, fresh = _baseline(
            build, target, least_privileged_context, tiers, delegate, on_interrupt, config
        )
        if fresh:
            exercise.observe(least)
        through = target.run(
            context=context, script=delegate, on_interrupt=on_interrupt, config=config
        )
        exercise.observe(through)
        found += _gain_through(subagent, least, through)
    if found:
        raise exercise.failed(
            violation(
                "check_fail_closed",
                invariant="an untrusted or missing context degrades to least privilege: no "
                "extra tool, no other model, no crash",
                counterexample=f"context={context!r}",
                found=found,
                fix="resolve identity only from a trusted context type, fall back to the least "
                "privileged role and model for anything else, and handle runtime/context None",
                trace=run.trace,
                replay=(
                    f"check_fail_closed(build, {context!r}, least_privileged_context="
                    f"{least_privileged_context!r}{_tiers_arg(tiers)})"
                ),
            )
        )
    return exercise.passed(
        counterexample=f"least_privileged_context={least_privileged_context!r}",
        fix="make the least-privileged context reach the model (check the input and the "
        "script), or pass a script that does",
    )


_BASELINES: dict[tuple[Any, ...], tuple[Any, TargetRun]] = {}  # build, baseline run


def _baseline(
    build: Any,
    target: Target,
    context: Any,
    tiers: Sequence[str] | None,
    script: Any,
    on_interrupt: OnInterrupt,
    config: Mapping[str, Any] | None,
) -> tuple[TargetRun, bool]:
    """The least-privileged run, computed once per (factory, context, tiers, script, answer):
    a property test calls the check hundreds of times with the same baseline. The flag says
    whether it was run now."""
    key = (id(build), repr((context, tuple(tiers or ()), script, on_interrupt, config)))
    cached = _BASELINES.get(key)
    if cached is not None and cached[0] is build:
        return cached[1], False
    run = target.run(context=context, script=script, on_interrupt=on_interrupt, config=config)
    if len(_BASELINES) >= 64:
        _BASELINES.clear()
    _BASELINES[key] = (build, run)
    return run, True


def _gain_through(subagent: str, baseline: TargetRun, run: TargetRun) -> list[str]:
    """Tools the untrusted context's run of ``subagent`` showed beyond the baseline's."""

    def shown(which: TargetRun) -> set[str]:
        return {name for request in subagent_requests(which) for name in request.tool_names}

    extra = sorted(shown(run) - shown(baseline))
    if run.error is not None:
        return [
            f"through subagent {subagent!r}: the run crashed instead of degrading: {_crash(run)}"
        ]
    return (
        [f"through subagent {subagent!r}: tools beyond the least-privileged set: {extra}"]
        if extra
        else []
    )


def _privilege_gain(baseline: TargetRun, run: TargetRun) -> list[str]:
    if run.error is not None:
        return [f"the run crashed instead of degrading: {_crash(run)}"]
    found = []
    extra_tools = sorted(run.visible_tools - baseline.visible_tools)
    if extra_tools:
        found.append(f"tools beyond the least-privileged set: {extra_tools}")
    other_models = sorted(set(run.called) - set(baseline.called))
    if other_models:
        found.append(f"model(s) {other_models} instead of {sorted(baseline.called)}")
    return found


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
    if isinstance(excluded, str) or not excluded:
        raise UsageError(
            f"hookproof: check_exclusion_holds takes a non-empty collection of tool names, got "
            f"{excluded!r}. Example: check_exclusion_holds(build, ['delete_customer'])."
        )
    exercise = Exercise("check_exclusion_holds", allow_untested=allow_untested)
    target = as_target(build, tiers)
    schemas = target.tool_schemas()
    exercise.context(context)
    found: list[str] = []
    shown: TargetRun | None = None  # the run whose trace the report shows
    tools = _tool_objects(target)
    subagents: list[str] = []
    for name in sorted(excluded):
        script = call_once_then_done(call(name, example_args(schemas.get(name, {}))))
        run, ran = watched_run(
            target, tools.get(name, []), name, context, script, on_interrupt, config
        )
        exercise.observe(run, ran=ran)
        problems = _exclusion_problems(target, run, name, excluded, name in schemas, exercise, ran)
        subagents = subagents or subagents_of(run)
        if shown is None and (problems or len(exercise.untested)):
            shown = run
        found += problems
    for subagent in subagents:
        for name in sorted(excluded):
            turn = call(name, example_args(schemas.get(name, {})))
            delegate = Delegating(subagent, turn)
            run, ran = watched_run(
                target, tools.get(name, []), name, context, delegate, on_interrupt, config
            )
            exercise.observe(run, ran=ran)
            problems = _through_subagent(run, subagent, name, excluded, ran)
            if shown is None and problems:
                shown = run
            found += problems
    counterexample = f"excluded={sorted(excluded)!r}, context={context!r}"
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
                trace=shown.trace if shown is not None else None,
                replay=f"check_exclusion_holds(build, {sorted(excluded)!r}, context={context!r}"
                f"{_tiers_arg(tiers)})",
            )
        )
    return exercise.passed(
        counterexample=counterexample,
        fix="let the call reach the tool step: answer the agent's interrupts the way it "
        "expects (on_interrupt='approve' or a function of the interrupt value), name tools "
        "the agent has, or check a context for which the agent calls the model",
        trace=shown.trace if shown is not None else None,
    )


def watched_run(
    target: Target,
    tools: Sequence[Any],
    name: str,
    context: Any,
    script: Any,
    on_interrupt: OnInterrupt,
    config: Mapping[str, Any] | None,
) -> tuple[TargetRun, Set[str]]:
    """One run, and whether the function of tool ``name`` (one of ``tools``) ran in it."""
    with watching({name: tools}, target.tool_library_modules) as ran:
        run = target.run(context=context, script=script, on_interrupt=on_interrupt, config=config)
    return run, ran


def _tool_objects(target: Target) -> Mapping[str, list[Any]]:
    objects = getattr(target, "tool_objects", None)
    return objects() if callable(objects) else {}


_SUBAGENT_FIX = (
    "; a subagent runs with its own tools and middleware (deepagents' default general-purpose "
    "subagent has every tool of the main agent and none of its middleware): give it the same "
    "filter, or tools without the excluded ones (subagents=[{'name': 'general-purpose', ..., "
    "'middleware': [...]}])"
)


def _through_subagent(
    run: TargetRun, subagent: str, name: str, excluded: Collection[str], ran: Set[str]
) -> list[str]:
    """What a call to ``name`` made inside ``subagent`` shows of excluded tools."""
    where = f"through subagent {subagent!r}"
    found = [
        f"{where}: its model call was shown excluded tool(s) {shown}"
        for request in subagent_requests(run)
        if (shown := sorted(set(request.tool_names) & set(excluded)))
    ][:1]
    executed = sorted((executed_tools(run) | ran) & set(excluded))
    if executed:
        found.append(f"{where}: excluded tool(s) {executed} executed when it called {name!r}")
    if run.error is not None and not found:
        found.append(f"{where}: the run calling {name!r} raised {_crash(run)} (it may have run)")
    return found


def _exclusion_problems(
    target: Target,
    run: TargetRun,
    name: str,
    excluded: Collection[str],
    registered: bool,
    exercise: Exercise,
    ran: Set[str],
) -> list[str]:
    """What a run calling excluded ``name`` shows (a success answer counts only where the
    target's tool answers carry a status: a refusal cannot say it failed otherwise)."""
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
    if found:
        return found
    answer = answer_to(run, name)
    refused_as_unknown = _unknown(target, answer.text if answer else str(run.error or ""))
    if refused_as_unknown and not registered:
        exercise.not_tried(
            f"{name}: not a tool of this agent, so the call was refused as unknown and no "
            "exclusion was tried (a misspelt name? a tool only a subagent has?)"
        )
    elif run.error is not None and not refused_as_unknown:
        found.append(f"the run calling {name!r} raised {_crash(run)} (it may have run)")
    elif _rejected(answer):
        exercise.not_tried(_rejection(name))
    elif answer is None and (reason := _never_tried(run, name)):
        exercise.not_tried(reason)
    elif answer is not None and answer.status == "success" and target.tool_answers_carry_status:
        found.append(
            f"the call to excluded tool {name!r} was answered with a success "
            f"({safe_repr(answer.text, 80)}), as if it ran; a refusal answers with status='error'"
        )
    return found


_CLOSURE = "every tool shown to the model can be executed"
_CLOSURE_FIX = (
    "a tool added in wrap_model_call needs a matching wrap_tool_call that sets request.tool "
    "(or register it in tools=)"
)


def _refused_unexecutable(target: Target, error: BaseException) -> bool:
    """Whether ``error`` is the framework's own refusal to show a tool nothing executes."""
    text = f"{type(error).__name__}: {error}"
    return any(marker in text for marker in target.unexecutable_tool_markers)


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
    target = as_target(build, tiers)
    first = target.run(context=context, on_interrupt=on_interrupt, config=config)
    exercise.context(context)
    exercise.observe(first)
    if first.error is not None:
        refused = _refused_unexecutable(target, first.error)
        raise exercise.failed(
            violation(
                "check_tool_closure",
                invariant=_CLOSURE if refused else "the agent runs",
                counterexample=f"context={context!r}",
                found=[
                    f"the framework refused to run: {_crash(first)}"
                    if refused
                    else f"the run raised {_crash(first)}"
                ],
                fix=_CLOSURE_FIX if refused else "make the agent run with a one-turn script first",
                trace=first.trace,
            )
        )
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
        if (
            problem := _closure(
                target, name, schemas[name], context, on_interrupt, config, exercise
            )
        )
    ]
    if found:
        raise exercise.failed(
            violation(
                "check_tool_closure",
                invariant=_CLOSURE,
                counterexample=f"context={context!r}",
                found=found,
                fix=_CLOSURE_FIX,
                replay=f"check_tool_closure(build, context={context!r}{_tiers_arg(tiers)})",
            )
        )
    return exercise.passed(
        counterexample=f"context={context!r}",
        fix="check a context that is shown tools, and let each call reach the tool step "
        "(answer interrupts with on_interrupt=..., give the agent a checkpointer)",
    )


def _closure(
    target: Target,
    name: str,
    schema: Any,
    context: Any,
    on_interrupt: OnInterrupt,
    config: Mapping[str, Any] | None,
    exercise: Exercise,
) -> str | None:
    script = call_once_then_done(call(name, example_args(schema)))
    run = target.run(context=context, script=script, on_interrupt=on_interrupt, config=config)
    exercise.observe(run)
    executed = name in executed_tools(run)
    if run.error is not None:
        if executed and not _unknown(target, str(run.error)):
            return None  # the tool ran and raised: it has an executor
        return f"{name}: calling it failed before any executor ran: {_crash(run)}"
    answer = answer_to(run, name)
    if answer is not None and _unknown(target, answer.text):
        return f"{name}: shown to the model but no executor ran it ({answer.text})"
    if _rejected(answer):
        exercise.not_tried(_rejection(name))
    elif answer is None and not executed:
        exercise.not_tried(
            _never_tried(run, name)
            or f"{name}: the run ended without executing or answering the call"
        )
    return None


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
                + (f"; the run raised {_crash(run)}" if run.error else "")
            ],
            fix="test injected dependencies with `is not None`, never with `or` or `if model:`",
            trace=run.trace,
            replay=f"check_injected_model_used(build{_tiers_arg(tiers)})",
        )
    )
