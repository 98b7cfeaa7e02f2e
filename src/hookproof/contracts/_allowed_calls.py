"""check_allowed_calls_succeed: every call whose arguments a tool's JSON Schema allows ends
in a success answer from that tool's own executor (arguments drawn and shrunk by
hypothesis, imported only when the check runs)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from hookproof._support.untimed import untimed
from hookproof.contracts._outcome import crash, rejected, rejection, shown_tools, tiers_arg, untried
from hookproof.contracts._report import CheckReport, Exercise, answer_to, executed_tools
from hookproof.contracts._runner import Runner
from hookproof.contracts._tool_names import builtin_tool_names, known_names, named_tools
from hookproof.contracts._violation import violation
from hookproof.errors import UsageError
from hookproof.targets import Build, OnInterrupt, Target, TargetRun, as_target
from hookproof.tools import ToolSchema

__all__ = ["check_allowed_calls_succeed"]

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
    in ``skip`` (the harness's file tools, for instance, reject relative paths: pass
    ``skip=hookproof.harness.BUILTIN_TOOL_NAMES``, or
    ``hookproof.adapters.deepagents.BUILTIN_TOOL_NAMES`` on deepagents, to check only your own
    tools; those names may be skipped whether or not the agent has them). Skipped tools are
    not called; ``report.tools_skipped`` names each tool of the agent left uncalled and why
    (named in ``skip``, or not shown to the model for ``context``). Failing arguments are
    shrunk to a minimal example, and failures of all tools are reported together.

    The search runs under the active hypothesis profile (deterministic under ``ci``), with
    no example database. Call the check from a plain test (parametrize over contexts);
    inside a ``@given`` test, suppress hypothesis' ``HealthCheck.nested_given`` on it."""
    __tracebackhide__ = True
    check = "check_allowed_calls_succeed"
    skipped = named_tools(skip, "skip", check)
    if isinstance(max_examples, bool) or not isinstance(max_examples, int) or max_examples < 1:
        raise UsageError(
            f"hookproof: {check} takes max_examples as a positive int (calls drawn per tool), "
            f"got {max_examples!r}."
        )
    exercise = Exercise(check, allow_untested=allow_untested)
    runner = Runner(as_target(build, tiers), context, on_interrupt, config)
    first = runner.run()
    exercise.context(context)
    exercise.observe(first)
    case = f"context={context!r}" + (f", skip={sorted(skipped)!r}" if skipped else "")
    if first.error is not None:
        raise exercise.failed(_crashed(check, case, first))
    shown = shown_tools(first)
    registered = {*shown, *runner.target.tool_schemas()}
    if absent := skipped - registered:
        known_names(absent - builtin_tool_names(), registered, "skip")
    _record_skipped(exercise, registered, set(shown), skipped, context)
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


def _record_skipped(
    exercise: Exercise, registered: set[str], shown: set[str], skipped: frozenset[str], context: Any
) -> None:
    """Every tool of the agent the check does not call, and why."""
    for name in sorted(registered & skipped):
        exercise.skip(name, "named in skip=")
    for name in sorted(registered - shown - skipped):
        exercise.skip(name, f"not shown to the model for context={context!r}, so not callable")


def _crashed(check: str, case: str, run: TargetRun) -> Any:
    return violation(
        check,
        invariant="the agent runs",
        counterexample=case,
        found=[f"the run raised {crash(run)}"],
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
        replay=f"check_allowed_calls_succeed(build, {context!r}{skip}{tiers_arg(tiers)})",
    )


def _explore(
    runner: Runner, name: str, schema: ToolSchema, max_examples: int, exercise: Exercise
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

    def __init__(self, runner: Runner, name: str, exercise: Exercise) -> None:
        self.runner, self.name, self.exercise = runner, name, exercise
        self.stopped = False

    def __call__(self, args: Mapping[str, Any]) -> None:
        if self.stopped:
            return
        run = self.runner.call(self.name, args)
        self.exercise.observe(run)
        problem, not_tried = _judged(run, self.name)
        if not_tried is not None:
            self.exercise.not_tried(not_tried)
            self.stopped = True
        if problem is not None:
            raise _CallFailed(f"{self.name}: {problem}", args, run)


def _judged(run: TargetRun, name: str) -> tuple[str | None, str | None]:
    """(the problem, what was not tried) for one call of ``name``."""
    ran = name in executed_tools(run)
    if run.error is not None:
        return f"the call raised {'after' if ran else 'before'} the tool ran: {crash(run)}", None
    answer = answer_to(run, name)
    if answer is None:
        return None, None if ran else untried(run, name)
    if rejected(answer):
        return None, rejection(name)
    if not ran:
        return f"the call was answered without running the tool: {answer.text!r}", None
    if answer.status != "success":
        return f"the tool answered with an error: {answer.text!r}", None
    return None, None
