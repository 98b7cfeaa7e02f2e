"""check_fail_closed: an untrusted, unknown, malformed or missing context gets no more than
the least-privileged trusted one (no extra tool, no other model, no crash), in the main
agent and through each subagent its ``task`` tool offers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from hookproof._exercised import current_test_memo
from hookproof._support.untimed import untimed
from hookproof.contracts._engines import Engine, engines_for, judged
from hookproof.contracts._outcome import crash, tiers_arg
from hookproof.contracts._report import CheckReport, Exercise
from hookproof.contracts._runner import Runner
from hookproof.contracts._subagents import Delegating, subagent_requests, subagents_of
from hookproof.contracts._violation import violation
from hookproof.targets import Build, OnInterrupt, Target, TargetRun

__all__ = ["check_fail_closed"]


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
    engine: Engine = "auto",
    confirm: int = 3,
) -> CheckReport:
    """An untrusted, unknown, malformed or missing context never gets more tools, or another
    model, than the least-privileged trusted context; a crash is a violation too. The
    least-privileged run must reach the model, or there is nothing to compare with.

    A LangChain ``create_agent`` or deepagents app runs its first example of a test on the
    real graph and the next ones on the reference engine (its code unchanged, through the
    bridge): a violation is reported only when the real graph shows it too, and the 1st,
    4th, 16th, ... example on the reference engine (``confirm`` of them) is run again on the
    real graph; engines that disagree raise ``EngineDisagreementError``. ``engine="graph"``
    runs every example on the real graph, ``engine="reference"`` refuses to fall back to it
    when the bridge cannot build the app. ``report.engine`` says where this example ran."""
    __tracebackhide__ = True
    options = _Options(least_privileged_context, tiers, script, on_interrupt, config)
    engines = engines_for(build, tiers, engine)
    shown = repr(context)
    return judged(
        "check_fail_closed",
        lambda target: _fail_closed_on(target, build, (context, shown), options, allow_untested),
        engines,
        example=f"context={shown}",
        confirm=confirm,
    )


@dataclass(slots=True)  # made once per example: a frozen one's setattr per field costs more
class _Options:
    least_privileged_context: Any
    tiers: Sequence[str] | None
    script: Any
    on_interrupt: OnInterrupt
    config: Mapping[str, Any] | None


def _fail_closed_on(
    target: Target,
    build: Any,
    drawn: tuple[Any, str],
    options: _Options,
    allow_untested: bool,
) -> CheckReport:
    __tracebackhide__ = True
    (context, shown), script = drawn, options.script
    least_privileged_context = options.least_privileged_context
    on_interrupt, config = options.on_interrupt, options.config
    exercise = Exercise("check_fail_closed", allow_untested=allow_untested)
    least = _Baselines(
        build, Runner(target, least_privileged_context, on_interrupt, config), options.tiers
    )
    baseline = least.run(script, exercise)
    exercise.context(least_privileged_context, shown=least.shown)
    if baseline.error is not None:
        raise exercise.failed(_baseline_crashed(least_privileged_context, baseline))
    if not baseline.final_requests:
        exercise.not_tried(
            "the least-privileged run never called the model, so there are no tools or "
            "models to compare the untrusted run with"
            + (f" ({baseline.paused})" if baseline.paused else "")
        )
    untrusted = Runner(target, context, on_interrupt, config)
    run = untrusted.run(script)
    exercise.context(context, shown=shown)
    exercise.observe(run)
    if run.paused is not None:
        exercise.not_tried(f"the run for context={shown} {run.paused.removeprefix('the run ')}")
    found = _privilege_gain(baseline, run)
    for subagent in [] if found else subagents_of(run):
        delegate = Delegating(subagent, "done")
        least_through = least.run(delegate, exercise)
        through = untrusted.run(delegate)
        exercise.observe(through)
        found += _gain_through(subagent, least_through, through)
    if found:
        raise exercise.failed(
            violation(
                "check_fail_closed",
                invariant="an untrusted or missing context degrades to least privilege: no "
                "extra tool, no other model, no crash",
                counterexample=f"context={shown}",
                found=found,
                fix="resolve identity only from a trusted context type, fall back to the least "
                "privileged role and model for anything else, and handle runtime/context None",
                trace=run.trace,
                replay=(
                    f"check_fail_closed(build, {shown}, least_privileged_context="
                    f"{least.shown}{tiers_arg(options.tiers)})"
                ),
            )
        )
    return exercise.passed(
        counterexample=f"least_privileged_context={least.shown}",
        fix="make the least-privileged context reach the model (check the input and the "
        "script), or pass a script that does",
    )


def _baseline_crashed(least_privileged_context: Any, baseline: TargetRun) -> Any:
    return violation(
        "check_fail_closed",
        invariant="the least-privileged trusted context runs without error",
        counterexample=f"least_privileged_context={least_privileged_context!r}",
        found=[f"the baseline run raised {crash(baseline)}"],
        fix="make the agent run for its least-privileged context first",
    )


class _Baselines:
    """The least-privileged runs, computed once per (factory, context, tiers, script,
    answer) within one test: a property test calls the check hundreds of times with the same
    baseline. Never across tests (their fixtures may change what the factory builds), and not
    at all outside a test the plugin watches."""

    def __init__(self, build: Any, runner: Runner, tiers: Sequence[str] | None) -> None:
        self.build, self.runner, self.tiers = build, runner, tuple(tiers or ())
        self.shown = repr(runner.context)

    def run(self, script: Any, exercise: Exercise) -> TargetRun:
        """The baseline run for ``script``; counted in ``exercise`` when it ran now."""
        runner = self.runner
        options = (self.shown, repr((self.tiers, script, runner.on_interrupt, runner.config)))
        engine = type(runner.target).__name__  # a graph's baseline is not the bridge's
        key = ("check_fail_closed baseline", id(self.build), engine, options)
        memo = current_test_memo()
        cached = None if memo is None else memo.get(key)
        if cached is not None and cached[0] is self.build:
            return cast(TargetRun, cached[1])
        run = runner.run(script)
        exercise.observe(run)
        if memo is not None:
            memo[key] = (self.build, run)
        return run


def _gain_through(subagent: str, baseline: TargetRun, run: TargetRun) -> list[str]:
    """Tools the untrusted context's run of ``subagent`` showed beyond the baseline's."""

    def shown(which: TargetRun) -> set[str]:
        return {name for request in subagent_requests(which) for name in request.tool_names}

    extra = sorted(shown(run) - shown(baseline))
    if run.error is not None:
        return [
            f"through subagent {subagent!r}: the run crashed instead of degrading: {crash(run)}"
        ]
    return (
        [f"through subagent {subagent!r}: tools beyond the least-privileged set: {extra}"]
        if extra
        else []
    )


def _privilege_gain(baseline: TargetRun, run: TargetRun) -> list[str]:
    if run.error is not None:
        return [f"the run crashed instead of degrading: {crash(run)}"]
    found = []
    extra_tools = sorted(run.visible_tools - baseline.visible_tools)
    if extra_tools:
        found.append(f"tools beyond the least-privileged set: {extra_tools}")
    other_models = sorted(set(run.called) - set(baseline.called))
    if other_models:
        found.append(f"model(s) {other_models} instead of {sorted(baseline.called)}")
    return found
