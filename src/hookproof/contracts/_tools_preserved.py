"""check_tools_preserved: tools a middleware does not own stay visible and executable,
exactly as without that middleware."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from hookproof._support.untimed import untimed
from hookproof.contracts._args import example_args
from hookproof.contracts._outcome import crash, rejected, rejection, shown_tools, tiers_arg, untried
from hookproof.contracts._removal import middleware_label, without_middleware
from hookproof.contracts._report import CheckReport, Exercise, answer_to, executed_tools
from hookproof.contracts._runner import Runner
from hookproof.contracts._tool_names import known_names, named_tools
from hookproof.contracts._violation import violation
from hookproof.errors import UsageError
from hookproof.targets import Build, OnInterrupt, Target, TargetRun, as_target
from hookproof.tools import ToolSchema

__all__ = ["check_tools_preserved"]


_PRESERVED = (
    "every tool the middleware does not own is shown to the model with the same name, "
    "description and parameters, and a call to it runs the tool, exactly as without it"
)
_PRESERVED_FIX = (
    "remove only the tools the middleware owns (`[t for t in request.tools if t.name not in "
    "HIDDEN]`) instead of keeping an allow-list, which drops the tools other middleware and the "
    "harness add (write_todos, ls, read_file, task, ...); refuse in wrap_tool_call only calls "
    "to owned tools; or name the tools it may hide or change in owned=(...)"
)


@untimed
def check_tools_preserved(
    build: Callable[..., Any],
    context: Any,
    *,
    middleware: Any,
    owned: Collection[str] = (),
    tiers: Sequence[str] | None = None,
    on_interrupt: OnInterrupt = "approve",
    config: Mapping[str, Any] | None = None,
    allow_untested: bool = False,
) -> CheckReport:
    """Every tool the middleware under test does not own stays visible and executable exactly
    as without that middleware: a role router that keeps an allow-list of business tools must
    not delete the harness's write_todos, ls or task.

    ``build(model) -> agent`` is the factory you already have, and ``middleware`` names the
    middleware under test in the stack it builds: an instance (the one the factory uses, or
    else the middleware of exactly its class), a class (its instance), or a name (a
    middleware's ``name`` or class name). The baseline is what your factory builds with that
    middleware taken out: while it builds, hookproof intercepts the framework's agent
    constructors (LangChain's and hookproof's ``create_agent``, which deepagents and the
    harness build through, and Eino's ``ChatModelAgent``) and calls them without it. It must
    match one middleware of a stack, or the check says so and lists the stacks;
    ``report.middleware_removed`` names what was taken out.

    ``build(model, middleware) -> agent``, a factory with a second parameter, still works: it
    receives ``[middleware]`` (or the list you pass) and ``[]`` and places it in its stack.

    ``owned`` names the tools the middleware may hide, refuse or change. For every other tool
    shown to the model without the middleware: it is shown with it, with the same schema, on
    the first model call; a scripted call to it runs the tool with it whenever it runs the
    tool without it, and the answer's status (success or error) is the same. A tool the
    baseline cannot run either (its call paused, was rejected, or never reached it) is
    untested, not passed."""
    __tracebackhide__ = True
    check = "check_tools_preserved"
    owned_names = named_tools(owned, "owned", check)
    exercise = Exercise(check, allow_untested=allow_untested)
    agents, removed = _with_and_without(build, middleware, tiers)
    exercise.removed(removed)
    label = ", ".join(removed)
    known_names(owned_names, _registered(agents), "owned")
    with_it, without = (Runner(a, context, on_interrupt, config) for a in agents)
    base, run = without.run(), with_it.run()
    exercise.context(context)
    exercise.observe(base)
    exercise.observe(run)
    case = f"context={context!r}, middleware=[{label}], owned={sorted(owned_names)!r}"
    _raise_on_crash(exercise, check, case, base, run)
    kept = {n: s for n, s in shown_tools(base).items() if n not in owned_names}
    if not kept:
        exercise.not_tried(_nothing_kept(base, owned_names))
    found = _visibility(kept, shown_tools(run))
    shown_trace = run.trace if found else None
    for name in sorted(kept):
        problem, trace = _executable(name, kept[name], with_it, without, exercise)
        found += [problem] if problem else []
        shown_trace = shown_trace or trace
    found.sort(key=lambda line: line.split(":", 1)[0])  # by tool, stable
    if found:
        raise exercise.failed(
            violation(
                check,
                invariant=_PRESERVED,
                counterexample=case,
                found=found,
                fix=_PRESERVED_FIX,
                trace=shown_trace,
                replay=f"check_tools_preserved(build, {context!r}, middleware={label!r}, "
                f"owned={sorted(owned_names)!r}{tiers_arg(tiers)})",
            )
        )
    return exercise.passed(
        counterexample=case,
        fix="check a context for which the agent without the middleware calls the model and "
        "runs each tool (answer interrupts with on_interrupt=..., or pass allow_untested=True "
        "for tools that cannot run in a test)",
    )


def _with_and_without(
    build: Callable[..., Any], middleware: Any, tiers: Sequence[str] | None
) -> tuple[list[Target], tuple[str, ...]]:
    """The agent with the middleware and without it, and the names of what differs."""
    if _takes_middleware(build):
        stack = list(middleware) if isinstance(middleware, list | tuple) else [middleware]
        with_it = as_target(_bound(build, stack), tiers)
        labels = tuple(middleware_label(item) for item in stack)
        return [with_it, as_target(_bound(build, []), tiers)], labels
    if isinstance(middleware, list | tuple):
        raise UsageError(
            "hookproof: check_tools_preserved takes one middleware to take out of what "
            f"build(model) builds, got a {type(middleware).__name__}. Check each in a call of "
            "its own, or pass a factory build(model, middleware) to check a list together."
        )
    target = as_target(build, tiers)
    removed = without_middleware(target, middleware, "check_tools_preserved")
    return [target, removed.target], removed.labels


def _takes_middleware(build: Any) -> bool:
    """Whether ``build`` takes a second positional argument (the middleware list)."""
    try:
        parameters = inspect.signature(build).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(parameter.kind in positional for parameter in parameters) >= 2


def _bound(build: Callable[..., Any], stack: list[Any]) -> Build:
    return lambda model: build(model, list(stack))


def _registered(agents: Sequence[Target]) -> set[str]:
    return {name for agent in agents for name in agent.tool_schemas()}


def _raise_on_crash(
    exercise: Exercise, check: str, case: str, base: TargetRun, run: TargetRun
) -> None:
    __tracebackhide__ = True
    crashed = [("without the middleware", base), ("with the middleware", run)]
    for where, broken in crashed:
        if broken.error is not None:
            raise exercise.failed(
                violation(
                    check,
                    invariant=f"the agent runs {where}",
                    counterexample=case,
                    found=[f"the run {where} raised {crash(broken)}"],
                    fix="make the factory build a runnable agent both with the middleware and "
                    "without it",
                    trace=broken.trace,
                )
            )


def _nothing_kept(base: TargetRun, owned: frozenset[str]) -> str:
    if not base.final_requests:
        return "without the middleware the model was never called, so no tools were shown" + (
            f" ({base.paused})" if base.paused else ""
        )
    return (
        f"without the middleware the model was shown no tool beyond the owned ones "
        f"{sorted(owned)}, so there was no tool to preserve"
    )


def _visibility(kept: Mapping[str, ToolSchema], shown: Mapping[str, ToolSchema]) -> list[str]:
    found = []
    for name in sorted(kept):
        if name not in shown:
            found.append(f"{name}: shown to the model without the middleware, gone with it")
        elif shown[name] != kept[name]:
            changed = [f for f in ("description", "parameters") if _differs(kept, shown, name, f)]
            found.append(f"{name}: shown with a changed {' and '.join(changed)}")
    return found


def _differs(a: Mapping[str, ToolSchema], b: Mapping[str, ToolSchema], name: str, f: str) -> bool:
    return bool(getattr(a[name], f) != getattr(b[name], f))


def _executable(
    name: str, schema: ToolSchema, with_it: Runner, without: Runner, exercise: Exercise
) -> tuple[str | None, Any]:
    """The problem with calling ``name`` through the middleware, if any, and the trace that
    shows it. A tool the baseline cannot run is noted as untested."""
    args = example_args(schema.parameters)
    before, after = without.call(name, args), with_it.call(name, args)
    exercise.observe(before)
    exercise.observe(after)
    if name not in executed_tools(before):
        exercise.not_tried(f"{name}: without the middleware too, {_outcome(before, name)}")
        return None, None
    if name in executed_tools(after):
        return _status_change(name, before, after), after.trace
    if after.error is not None:
        return f"{name}: a call to it raised before the tool ran: {crash(after)}", after.trace
    answer = answer_to(after, name)
    if answer is None or rejected(answer):
        exercise.not_tried(rejection(name) if answer else untried(after, name))
        return None, None
    return f"{name}: a call to it was answered without running the tool: {answer.text!r}", (
        after.trace
    )


def _status_change(name: str, before: TargetRun, after: TargetRun) -> str | None:
    was, now = answer_to(before, name), answer_to(after, name)
    if was is None or now is None or was.status == now.status:
        return None
    return (
        f"{name}: its answer was {was.status} without the middleware and is {now.status} with "
        f"it: {now.text!r}"
    )


def _outcome(run: TargetRun, name: str) -> str:
    """Why the tool did not run, in the words of the untested list."""
    answer = answer_to(run, name)
    if run.error is not None:
        return f"the call raised before the tool ran: {crash(run)}"
    if answer is None:
        return untried(run, name).removeprefix(f"{name}: ")
    if rejected(answer):
        return "the call was answered by rejecting the human review"
    return f"the call did not run the tool (answer: {answer.text!r})"
