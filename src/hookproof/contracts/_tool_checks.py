"""Checks that the agent's tools keep working through the middleware: tools a middleware does
not own stay visible and executable (check_tools_preserved), and every call a tool's schema
allows ends in that tool's success answer (check_allowed_calls_succeed)."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hookproof._untimed import untimed
from hookproof.contracts._agent_checks import (
    _crash,
    _never_tried,
    _rejected,
    _rejection,
    _tiers_arg,
)
from hookproof.contracts._args import example_args
from hookproof.contracts._report import CheckReport, Exercise, answer_to, executed_tools
from hookproof.contracts._scripts import call_once_then_done
from hookproof.contracts._violation import violation
from hookproof.errors import InvalidInputError, UsageError
from hookproof.models import call
from hookproof.targets import Build, OnInterrupt, Target, TargetRun, as_target
from hookproof.tools import ToolSchema

__all__ = ["check_allowed_calls_succeed", "check_tools_preserved"]

BuildWith = Callable[[Any, list[Any]], Any]  # build(model, middleware) -> agent


@dataclass(frozen=True)
class _Runner:
    """Runs one target for the check's context, interrupt answer and config."""

    target: Target
    context: Any
    on_interrupt: OnInterrupt
    config: Mapping[str, Any] | None

    def run(self, script: Any = None) -> TargetRun:
        return self.target.run(
            context=self.context, script=script, on_interrupt=self.on_interrupt, config=self.config
        )

    def call(self, name: str, args: Mapping[str, Any]) -> TargetRun:
        return self.run(call_once_then_done(call(name, dict(args))))


def _shown(run: TargetRun) -> dict[str, ToolSchema]:
    """The tools the model was shown on the run's first call, by name."""
    first = run.final_requests[0] if run.final_requests else None
    return {tool.name: tool for tool in first.tools} if first is not None else {}


def _names(value: Collection[str], parameter: str, check: str) -> frozenset[str]:
    if isinstance(value, str):
        raise UsageError(
            f"hookproof: {check} takes {parameter} as a collection of tool names, got the "
            f"string {value!r}. Write {parameter}=({value!r},)."
        )
    return frozenset(value)


def _check_known(names: frozenset[str], known: Collection[str], parameter: str) -> None:
    unknown = sorted(names - set(known))
    if not unknown:
        return
    hints = {n: difflib.get_close_matches(n, sorted(known), n=1) for n in unknown}
    did_you_mean = "".join(f" {n!r}: did you mean {h[0]!r}?" for n, h in hints.items() if h)
    raise InvalidInputError(
        f"hookproof: {parameter} names {unknown}, which are no tools of this agent (its tools: "
        f"{sorted(known)}). A misspelt name would silently be checked the wrong way.{did_you_mean}"
        f" Name tools the agent registers or shows the model."
    )


def _stack(middleware: Any) -> list[Any]:
    return list(middleware) if isinstance(middleware, list | tuple) else [middleware]


def _label(stack: Sequence[Any]) -> str:
    return ", ".join(type(item).__name__ for item in stack)


# -- check_tools_preserved ---------------------------------------------------------------------

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
    build: BuildWith,
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

    ``build(model, middleware) -> agent`` is your factory with one more parameter: the list
    of middleware under test, which it places where that middleware belongs in its stack
    (``create_deep_agent(model, tools, middleware=[*middleware, Audit()])``). The check
    builds the agent with ``[middleware]`` and with ``[]`` and compares them, for
    ``context``. It asks the factory rather than removing the middleware from a built agent
    because only the factory can: LangChain and deepagents compile the stack into a graph,
    the harness assembles its own middleware around yours and Eino composes handlers at
    construction; and a separate "without" factory would drift from the real one.

    ``middleware`` is one middleware (or a list that belongs together); ``owned`` names the
    tools it may hide, refuse or change. For every other tool shown to the model without
    the middleware: it is shown with it, with the same schema, on the first model call; a
    scripted call to it runs the tool with it whenever it runs the tool without it, and the
    answer's status (success or error) is the same. A tool the baseline cannot run either
    (its call paused, was rejected, or never reached it) is untested, not passed."""
    __tracebackhide__ = True
    check = "check_tools_preserved"
    owned_names, stack = _names(owned, "owned", check), _stack(middleware)
    exercise = Exercise(check, allow_untested=allow_untested)
    agents = [as_target(_bound(build, items), tiers) for items in (stack, [])]
    _check_known(owned_names, _registered(agents), "owned")
    with_it, without = (_Runner(a, context, on_interrupt, config) for a in agents)
    base, run = without.run(), with_it.run()
    exercise.context(context)
    exercise.observe(base)
    exercise.observe(run)
    case = f"context={context!r}, middleware=[{_label(stack)}], owned={sorted(owned_names)!r}"
    _raise_on_crash(exercise, check, case, base, run)
    kept = {n: s for n, s in _shown(base).items() if n not in owned_names}
    if not kept:
        exercise.not_tried(_nothing_kept(base, owned_names))
    found = _visibility(kept, _shown(run))
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
                replay=f"check_tools_preserved(build, {context!r}, middleware=[{_label(stack)}"
                f"(...)], owned={sorted(owned_names)!r}{_tiers_arg(tiers)})",
            )
        )
    return exercise.passed(
        counterexample=case,
        fix="check a context for which the agent without the middleware calls the model and "
        "runs each tool (answer interrupts with on_interrupt=..., or pass allow_untested=True "
        "for tools that cannot run in a test)",
    )


def _bound(build: BuildWith, stack: list[Any]) -> Build:
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
                    found=[f"the run {where} raised {_crash(broken)}"],
                    fix="make build(model, middleware) build a runnable agent both with the "
                    "middleware list it is given and with an empty one",
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
    name: str, schema: ToolSchema, with_it: _Runner, without: _Runner, exercise: Exercise
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
        return f"{name}: a call to it raised before the tool ran: {_crash(after)}", after.trace
    answer = answer_to(after, name)
    if answer is None or _rejected(answer):
        exercise.not_tried(_rejection(name) if answer else _untried(after, name))
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
        return f"the call raised before the tool ran: {_crash(run)}"
    if answer is None:
        return _untried(run, name).removeprefix(f"{name}: ")
    if _rejected(answer):
        return "the call was answered by rejecting the human review"
    return f"the call did not run the tool (answer: {answer.text!r})"


def _untried(run: TargetRun, name: str) -> str:
    return _never_tried(run, name) or f"{name}: the run ended without answering the call"


# -- check_allowed_calls_succeed ---------------------------------------------------------------

_SUCCEED = (
    "every call whose arguments the tool's schema allows is answered with success by the "
    "tool itself"
)
_SUCCEED_FIX = (
    "pass the model's arguments through wrap_tool_call, or rewrite them only with values that "
    "exist for every context (a missing runtime.context field must not become None); if the "
    "tool itself rejects arguments its schema allows, tighten the schema (enum, pattern, "
    "minimum, minLength) or name the tool in skip=(...)"
)


class _CallFailed(Exception):
    """Raised inside the hypothesis search so that it shrinks the arguments."""

    def __init__(self, problem: str, args: Mapping[str, Any], run: TargetRun) -> None:
        super().__init__(problem)
        self.problem, self.arguments, self.run = problem, dict(args), run


@untimed
def check_allowed_calls_succeed(
    build: Build | Target,
    context: Any,
    *,
    skip: Collection[str] = (),
    max_examples: int = 20,
    tiers: Sequence[str] | None = None,
    on_interrupt: OnInterrupt = "approve",
    config: Mapping[str, Any] | None = None,
    allow_untested: bool = False,
) -> CheckReport:
    """Every call the model may make ends in a success answer from the tool it called: for
    each tool shown to the model on the first call for ``context``, arguments drawn by
    hypothesis from the tool's JSON Schema (``strategies.arguments``, ``max_examples`` per
    tool) are answered with status success by a run of that tool's executor (per the trace),
    not by a refusal, an error or a crash. It catches a ``wrap_tool_call`` that rewrites
    arguments (from a context that may lack the value) and turns valid calls into errors.

    The check is strict on purpose: a tool whose own function rejects arguments its schema
    allows fails too, since the model will make those calls; tighten its schema, or name it
    in ``skip`` (the harness's file tools, for instance, reject relative paths). Skipped
    tools are not called. Failing arguments are shrunk to a minimal example, and failures
    of all tools are reported together.

    The search runs under the active hypothesis profile (deterministic under ``ci``), with
    no example database. Call the check from a plain test (parametrize over contexts);
    inside a ``@given`` test, suppress hypothesis' ``HealthCheck.nested_given`` on it."""
    __tracebackhide__ = True
    check = "check_allowed_calls_succeed"
    skipped = _names(skip, "skip", check)
    if isinstance(max_examples, bool) or not isinstance(max_examples, int) or max_examples < 1:
        raise UsageError(
            f"hookproof: {check} takes max_examples as a positive int (calls drawn per tool), "
            f"got {max_examples!r}."
        )
    exercise = Exercise(check, allow_untested=allow_untested)
    target = as_target(build, tiers)
    runner = _Runner(target, context, on_interrupt, config)
    first = runner.run()
    exercise.context(context)
    exercise.observe(first)
    case = f"context={context!r}" + (f", skip={sorted(skipped)!r}" if skipped else "")
    if first.error is not None:
        raise exercise.failed(_crashed(check, case, first))
    shown = _shown(first)
    _check_known(skipped, {*shown, *target.tool_schemas()}, "skip")
    tried = sorted(set(shown) - skipped)
    if not tried:
        exercise.not_tried(_nothing_shown(first, skipped))
    failures = [
        failure
        for name in tried
        if (failure := _explore(runner, name, shown[name], max_examples, exercise))
    ]
    if failures:
        raise exercise.failed(_call_violation(check, context, skipped, failures, tiers))
    return exercise.passed(
        counterexample=case,
        fix="check a context that is shown tools, and let each call reach its tool (answer "
        "interrupts with on_interrupt=..., give the agent a checkpointer)",
    )


def _crashed(check: str, case: str, run: TargetRun) -> Any:
    return violation(
        check,
        invariant="the agent runs",
        counterexample=case,
        found=[f"the run raised {_crash(run)}"],
        fix="make the agent run with a one-turn script first",
        trace=run.trace,
    )


def _nothing_shown(first: TargetRun, skipped: frozenset[str]) -> str:
    reason = f" ({first.paused})" if first.paused else ""
    if first.final_requests and skipped:
        return f"every tool shown to the model is skipped ({sorted(skipped)}): none was called"
    return f"no tool was shown to the model, so no call could be tried{reason}"


def _call_violation(
    check: str,
    context: Any,
    skipped: frozenset[str],
    failures: Sequence[_CallFailed],
    tiers: Sequence[str] | None,
) -> Any:
    skip = f", skip={sorted(skipped)!r}" if skipped else ""
    return violation(
        check,
        invariant=_SUCCEED,
        counterexample=f"context={context!r}{skip}",
        found=[
            f"{failure.problem} (minimal arguments {failure.arguments!r})" for failure in failures
        ],
        fix=_SUCCEED_FIX,
        trace=failures[0].run.trace,
        replay=f"check_allowed_calls_succeed(build, {context!r}{skip}{_tiers_arg(tiers)})",
    )


def _explore(
    runner: _Runner, name: str, schema: ToolSchema, max_examples: int, exercise: Exercise
) -> _CallFailed | None:
    """Search arguments for ``name`` with hypothesis; the shrunk failure, or None."""
    from hypothesis import HealthCheck, Phase, given, settings

    from hookproof.contracts.strategies import arguments

    attempt = _Attempt(runner, name, exercise)

    @settings(
        max_examples=max_examples,
        database=None,
        deadline=None,
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
        report_multiple_bugs=False,
        suppress_health_check=(HealthCheck.too_slow, HealthCheck.large_base_example),
    )
    @given(arguments(schema.parameters))
    def explore(args: dict[str, Any]) -> None:
        attempt(args)

    try:
        explore()
    except _CallFailed as failure:
        return failure
    return None


class _Attempt:
    """One call of the tool with drawn arguments, judged; stops trying after a call that
    could not be exercised (it would not be, for the next arguments either)."""

    def __init__(self, runner: _Runner, name: str, exercise: Exercise) -> None:
        self.runner, self.name, self.exercise = runner, name, exercise
        self.stopped = False

    def __call__(self, args: Mapping[str, Any]) -> None:
        if self.stopped:
            return
        run = self.runner.call(self.name, args)
        self.exercise.observe(run)
        problem, untried = _judged(run, self.name)
        if untried is not None:
            self.exercise.not_tried(untried)
            self.stopped = True
        if problem is not None:
            raise _CallFailed(f"{self.name}: {problem}", args, run)


def _judged(run: TargetRun, name: str) -> tuple[str | None, str | None]:
    """(the problem, what was not tried) for one call of ``name``."""
    ran = name in executed_tools(run)
    if run.error is not None:
        return f"the call raised {'after' if ran else 'before'} the tool ran: {_crash(run)}", None
    answer = answer_to(run, name)
    if answer is None:
        return None, None if ran else _untried(run, name)
    if _rejected(answer):
        return None, _rejection(name)
    if not ran:
        return f"the call was answered without running the tool: {answer.text!r}", None
    if answer.status != "success":
        return f"the tool answered with an error: {answer.text!r}", None
    return None, None
