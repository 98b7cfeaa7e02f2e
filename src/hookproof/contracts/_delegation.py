"""check_delegation_contained: a tool the main agent hides for a context is neither shown to
nor run by any subagent its ``task`` tool reaches, unless delegated on purpose.

A declared deepagents (or harness) subagent without a ``tools`` key inherits the main
agent's tools and none of its middleware: the role filter that hides ``refund`` from a
guest on the main agent is not in the subagent, so ``task(subagent_type="researcher")``
hands the guest the refund. check_fail_closed compares a context with the least-privileged
one and misses it when both leak the same way; this check is absolute.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from hookproof._support.untimed import untimed
from hookproof.contracts._engines import Engine, engines_for, judged
from hookproof.contracts._outcome import crash, tiers_arg
from hookproof.contracts._report import CheckReport, Exercise
from hookproof.contracts._runner import Runner
from hookproof.contracts._subagents import subagent_requests, subagents_of
from hookproof.contracts._tool_access import AccessRuns, Probe, shown_names
from hookproof.contracts._tool_names import known_names, named_tools
from hookproof.contracts._violation import violation
from hookproof.targets import Build, OnInterrupt, Target, TargetRun

__all__ = ["check_delegation_contained", "delegation_problems"]

_CHECK = "check_delegation_contained"
_FIX = (
    "give each subagent the middleware that filters the main agent's tools (subagents=[{'name': "
    "'researcher', ..., 'middleware': [YourToolFilter()]}], and the same for 'general-purpose'), "
    "or only the tools it needs ('tools': [...]); list a tool a subagent may use on purpose in "
    "delegated=(...)"
)


@untimed
def check_delegation_contained(
    build: Build | Target,
    context: Any,
    *,
    delegated: Collection[str] = (),
    tiers: Sequence[str] | None = None,
    on_interrupt: OnInterrupt = "approve",
    config: Mapping[str, Any] | None = None,
    allow_untested: bool = False,
    engine: Engine = "auto",
    confirm: int = 3,
) -> CheckReport:
    """For ``context``, every tool the main agent hides (does not show on its model call) is
    hidden from every subagent its ``task`` tool offers, and a call the subagent makes to it
    does not run it; ``delegated`` names the tools a subagent may have anyway (a
    researcher's own search tool, say). The tools tried are the main agent's and those each
    subagent is shown. ``report.tool_access`` holds what each tool was to each subagent.

    An agent that offers no subagent for the context, or a subagent that never gets called,
    is untested, not passed. A LangChain or deepagents app runs on the reference engine,
    confirmed on the real graph, as ``check_fail_closed`` says (``engine=``, ``confirm=``)."""
    __tracebackhide__ = True
    allowed = named_tools(delegated, "delegated", _CHECK)
    options = _Options(allowed, tiers, on_interrupt, config, allow_untested)
    return judged(
        _CHECK,
        lambda target: _contained_on(target, context, options),
        engines_for(build, tiers, engine),
        example=f"context={context!r}, delegated={sorted(allowed)!r}",
        confirm=confirm,
    )


@dataclasses.dataclass(frozen=True)
class _Options:
    allowed: frozenset[str]
    tiers: Sequence[str] | None
    on_interrupt: OnInterrupt
    config: Mapping[str, Any] | None
    allow_untested: bool


def _contained_on(target: Target, context: Any, options: _Options) -> CheckReport:
    __tracebackhide__ = True
    allowed, tiers = options.allowed, options.tiers
    exercise = Exercise(_CHECK, allow_untested=options.allow_untested)
    runner = Runner(target, context, options.on_interrupt, options.config)
    access = AccessRuns(runner, exercise)
    exercise.context(context)
    plain = access.plain()
    case = f"context={context!r}, delegated={sorted(allowed)!r}"
    if plain.error is not None:
        raise exercise.failed(_crashed(case, plain))
    subagents = subagents_of(plain)
    if not subagents:
        exercise.not_tried(_no_subagent(plain))
    main = _MainAgent(access, plain, context)
    found: list[str] = []
    for subagent in subagents:
        found += _through(access, subagent, main, allowed)
    known_names(allowed, access.schemas, "delegated")
    if found:
        raise exercise.failed(
            violation(
                _CHECK,
                invariant="a tool the main agent hides is neither shown to nor run by a "
                "subagent its task tool reaches",
                counterexample=case,
                found=found,
                fix=_FIX,
                replay=f"check_delegation_contained(build, {context!r}, delegated="
                f"{tuple(sorted(allowed))!r}{tiers_arg(tiers)})",
            )
        )
    return exercise.passed(
        counterexample=case,
        fix="check a context for which the main agent offers its subagents through task, and "
        "let each subagent's call reach its tool step (answer interrupts with on_interrupt=...)",
    )


class _MainAgent:
    """What the main agent shows, and whether it runs a hidden tool its model calls (a
    framework may hide a tool it still runs, deepagents' ``execute``: a subagent running it
    too gains nothing), asked once per tool."""

    def __init__(self, access: AccessRuns, plain: TargetRun, context: Any) -> None:
        self.access, self.plain, self.context = access, plain, context
        self.shown = shown_names(plain.final_requests)
        self._runs: dict[str, bool] = {}

    def runs(self, tool: str) -> bool:
        if tool not in self._runs:
            probe = self.access.on_main(tool, self.plain)
            self.access.exercise.access(probe.row(self.context))
            self._runs[tool] = probe.ran
        return self._runs[tool]


def _through(
    access: AccessRuns, subagent: str, main: _MainAgent, allowed: frozenset[str]
) -> list[str]:
    """What the subagent was given of the tools the main agent hides."""
    plain = access.plain(subagent)
    where = f"subagent {subagent!r}"
    if plain.error is not None:
        return [f"{where}: delegating to it raised {crash(plain)}"]
    if not subagent_requests(plain):
        access.exercise.not_tried(
            f"{where}: never called when the main agent delegated to it"
            + (f" ({plain.paused})" if plain.paused else "")
        )
        return []
    hidden = (set(access.schemas) | shown_names(subagent_requests(plain))) - main.shown
    found = []
    for tool in sorted(hidden - allowed - {"task"}):
        probe = access.on_subagent(subagent, tool, plain)
        access.exercise.access(probe.row(main.context))
        if probe.ran and main.runs(tool):
            probe = dataclasses.replace(probe, ran=False)  # no more than the main agent gives
        found += delegation_problems(probe, access.exercise, "hidden from the main agent")
    return found


def delegation_problems(probe: Probe, exercise: Exercise, why: str) -> list[str]:
    """What a subagent's probe of a tool it must not have shows (``why``: whence the rule)."""
    where = f"{probe.agent}: {probe.tool} is {why}"
    found = []
    if any(probe.shown):
        found.append(f"{where} but shown to the subagent")
    if probe.ran:
        found.append(f"{where} but a call to it from the subagent ran the tool")
    elif probe.crashed is not None:
        found.append(
            f"{where}; a call to it from the subagent raised {probe.crashed} (it may have run)"
        )
    elif probe.not_tried is not None:
        exercise.not_tried(probe.not_tried)
    return found


def _no_subagent(plain: TargetRun) -> str:
    if not plain.final_requests:
        return "the model was never called, so no subagent could be found" + (
            f" ({plain.paused})" if plain.paused else ""
        )
    return (
        "the main agent offers no subagent for this context (its first model call shows no "
        "task tool listing one), so no delegation could be tried"
    )


def _crashed(case: str, plain: TargetRun) -> Any:
    return violation(
        _CHECK,
        invariant="the agent runs for the context",
        counterexample=case,
        found=[f"the run raised {crash(plain)}"],
        fix="make the agent run for this context with a one-turn script first",
        trace=plain.trace,
    )
