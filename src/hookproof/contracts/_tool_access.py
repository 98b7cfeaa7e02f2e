"""What each tool is to each agent for one context (check_role_matrix,
check_delegation_contained): shown to the model on every call, on none or on some; and
whether a call to it runs the tool, is refused, or could not be tried. Read on the main
agent (a run per tool whose model calls it) and through each subagent its ``task`` tool
offers (a run per subagent and tool in which the subagent makes the call)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hookproof.contracts._args import example_args
from hookproof.contracts._outcome import crash, rejected, rejection, unknown, untried
from hookproof.contracts._report import Exercise, ToolAccess, answer_to, executed_tools
from hookproof.contracts._runner import Runner
from hookproof.contracts._scripts import call_once_then_done
from hookproof.contracts._subagents import Delegating, subagent_requests
from hookproof.models import FinalRequest, call
from hookproof.targets import TargetRun

__all__ = ["MAIN", "AccessRuns", "Probe", "agent_label", "shown_names"]

MAIN = "main agent"


def agent_label(subagent: str | None) -> str:
    return MAIN if subagent is None else f"subagent {subagent!r}"


def shown_names(requests: Sequence[FinalRequest]) -> set[str]:
    return {name for request in requests for name in request.tool_names}


@dataclass(frozen=True)
class Probe:
    """One tool called by one agent: whether each of that agent's model calls showed it,
    whether it ran, and otherwise the refusal, the crash or why it was not tried."""

    tool: str
    subagent: str | None
    shown: tuple[bool, ...]
    ran: bool
    refusal: str | None = None
    crashed: str | None = None
    not_tried: str | None = None
    run: TargetRun | None = None

    @property
    def agent(self) -> str:
        return agent_label(self.subagent)

    @property
    def visibility(self) -> str:
        if self.shown and all(self.shown):
            return "visible"
        return "sometimes visible" if any(self.shown) else "hidden"

    @property
    def outcome(self) -> str:
        if self.ran:
            return "runs"
        if self.crashed is not None:
            return "crashed"
        return "not tried" if self.not_tried is not None else "refused"

    def row(self, context: Any) -> ToolAccess:
        return ToolAccess(repr(context), self.agent, self.tool, self.visibility, self.outcome)


class AccessRuns:
    """Runs one target for one context and reads what each tool is to each agent."""

    def __init__(self, runner: Runner, exercise: Exercise) -> None:
        self.runner, self.exercise = runner, exercise
        self.schemas: dict[str, Mapping[str, Any]] = dict(runner.target.tool_schemas())
        self.objects = runner.tool_objects()

    def plain(self, subagent: str | None = None) -> TargetRun:
        """A run that calls no tool (with ``subagent``: that only delegates to it)."""
        run = self.runner.run(None if subagent is None else Delegating(subagent, "done"))
        self.exercise.observe(run)
        self._learn(run.final_requests)
        return run

    def on_main(self, tool: str, plain: TargetRun) -> Probe:
        """The main agent's model calls ``tool``; it is judged shown on the plain run's model
        calls and on this run's first and last (the main agent's, around the call)."""
        run, ran = self._called(tool, call_once_then_done(self._turn(tool)))
        mine = run.final_requests[:1] + run.final_requests[-1:]
        shown = tuple(tool in r.tool_names for r in (*plain.final_requests, *mine))
        if ran:
            return Probe(tool, None, shown, True, run=run)
        answer = answer_to(run, tool)
        text = answer.text if answer is not None else None
        if run.error is not None and not unknown(self.runner.target, str(run.error)):
            return Probe(tool, None, shown, False, crashed=crash(run), run=run)
        if rejected(answer):
            return Probe(tool, None, shown, False, not_tried=rejection(tool), run=run)
        if answer is None and run.error is None:
            return Probe(tool, None, shown, False, not_tried=untried(run, tool), run=run)
        return Probe(tool, None, shown, False, refusal=text or str(run.error), run=run)

    def on_subagent(self, subagent: str, tool: str, plain: TargetRun) -> Probe:
        """``subagent`` calls ``tool``; it is judged shown on the subagent's model calls in
        the plain delegation and in this run."""
        self._learn(subagent_requests(plain))
        run, ran = self._called(tool, Delegating(subagent, self._turn(tool)))
        requests = subagent_requests(run)
        shown = tuple(tool in r.tool_names for r in (*subagent_requests(plain), *requests))
        if ran:
            return Probe(tool, subagent, shown, True, run=run)
        if run.error is not None:
            return Probe(tool, subagent, shown, False, crashed=crash(run), run=run)
        answer = _answer_in_subagent(run)
        if answer is None:
            reached = "the subagent's call got no answer" if requests else "it was never called"
            why = f"{tool}: through subagent {subagent!r}: {run.paused or reached}"
            return Probe(tool, subagent, shown, False, not_tried=why, run=run)
        return Probe(tool, subagent, shown, False, refusal=answer, run=run)

    def _turn(self, tool: str) -> Any:
        return call(tool, example_args(self.schemas.get(tool, {})))

    def _called(self, tool: str, script: Any) -> tuple[TargetRun, bool]:
        run, ran = self.runner.watched(tool, self.objects.get(tool, []), script)
        self.exercise.observe(run, ran=ran)
        return run, tool in (executed_tools(run) | ran)

    def _learn(self, requests: Sequence[FinalRequest]) -> None:
        """Keep the schema of tools only shown (a subagent's own, a middleware's)."""
        for request in requests:
            for name in request.tool_names:
                self.schemas.setdefault(name, request.tool(name).parameters)


def _answer_in_subagent(run: TargetRun) -> str | None:
    """The answer the subagent's call got, read from the subagent's next model call."""
    for request in subagent_requests(run):
        for message in request.messages:
            if message.role == "tool":
                return message.text
    return None
