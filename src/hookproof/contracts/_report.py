"""What a check really exercised, and the rule that an obligation it could not exercise fails.

Every ``check_*`` returns a CheckReport: the runs it made, the contexts it tried, the tool
calls it had the model make and the ones that really executed, the hooks it saw run and the
interrupts it answered. An obligation the check could not exercise (a call that never got an
answer, a hook that never called its handler, a middleware with nothing to check) raises
UntestedError, a ContractViolation, unless the caller passed ``allow_untested=True``: then
the check passes and ``report.untested`` says what was not tried.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hookproof import _exercised
from hookproof._support.assembled import assembled
from hookproof._support.docs import docs_link
from hookproof._support.frozen import FrozenDict
from hookproof.contracts._violation import excerpt
from hookproof.errors import ContractViolation, UntestedError
from hookproof.messages import AssistantMessage, Message, ToolCall, ToolMessage
from hookproof.trace import Trace

if TYPE_CHECKING:
    from hookproof.targets import TargetRun

__all__ = [
    "UNTESTED_DOCS",
    "CheckReport",
    "Exercise",
    "ToolAccess",
    "UntestedError",
    "access_table",
    "answer_to",
    "attempted_calls",
    "executed_tools",
    "hook_labels",
]

# The page that explains untested obligations, which every UntestedError's "Fix:" line links.
UNTESTED_DOCS = docs_link(
    "concepts/contracts.md", "what-a-pass-means-checks-prove-what-they-exercised"
)


@dataclass(frozen=True)
class CheckReport:
    """What one check call exercised. ``untested`` is empty unless ``allow_untested=True``
    let the check pass without exercising everything it promises. ``tools_skipped`` maps each
    tool of the agent a check left uncalled on purpose to why (``skip=``, or not shown to
    the model for the context). ``middleware_removed`` names the middleware a check took out
    of the factory's stack for its baseline; ``tool_access`` is what each tool was to each
    agent for each context, for the checks that read it (``access_table()`` shows it).

    ``engine`` says where a check that can choose ran this example: ``"reference"`` (the
    app's LangChain or deepagents code on the reference engine, through the bridge) or
    ``"graph"`` (the framework's own graph), and ``engine_note`` why; None for checks and
    apps without that choice. ``examples_on_reference`` and ``confirmed_on_graph`` count,
    within the current test, the examples of this check that ran on the reference engine and
    those the real graph confirmed (this one included)."""

    check: str
    runs: int = 0
    contexts: tuple[str, ...] = ()
    tool_calls_attempted: tuple[str, ...] = ()
    tool_calls_executed: tuple[str, ...] = ()
    hooks_observed: tuple[str, ...] = ()
    interrupts_resumed: int = 0
    untested: tuple[str, ...] = ()
    tools_skipped: Mapping[str, str] = field(default_factory=FrozenDict)
    middleware_removed: tuple[str, ...] = ()
    tool_access: tuple[ToolAccess, ...] = ()
    engine: str | None = None
    engine_note: str = ""
    examples_on_reference: int = 0
    confirmed_on_graph: int = 0

    def access_table(self) -> str:
        """``tool_access`` as a table per context: a row per tool, a column per agent."""
        return access_table(self.tool_access)

    @property
    def complete(self) -> bool:
        """True when every obligation of the check was exercised."""
        return not self.untested

    def counts(self) -> dict[str, int]:
        return {
            "checks": 1,
            "runs": self.runs,
            "contexts": len(self.contexts),
            "tool_calls_attempted": len(self.tool_calls_attempted),
            "tool_calls_executed": len(self.tool_calls_executed),
            "hooks_observed": len(self.hooks_observed),
            "interrupts_resumed": self.interrupts_resumed,
            "untested": len(self.untested),
        }

    def summary(self) -> str:
        """``2 runs, 1 contexts, ...``: what this one check call exercised."""
        counts = self.counts()
        return ", ".join(f"{counts[name]} {name.replace('_', ' ')}" for name in _COUNTED)


_COUNTED = [name for name in _exercised.COUNTS if name != "checks"]


@dataclass(frozen=True)
class ToolAccess:
    """What one tool was to one agent (``main agent`` or ``subagent 'name'``) for one
    context: ``visible`` (shown on every model call), ``hidden`` (on none) or ``sometimes
    visible``; and a call to it ``runs``, is ``refused``, or was ``not tried``."""

    context: str
    agent: str
    tool: str
    visibility: str
    call: str

    @property
    def cell(self) -> str:
        return f"{self.visibility} / {self.call}"


def access_table(rows: Sequence[ToolAccess]) -> str:
    """A table per context: a row per tool, a column per agent, each cell what the tool was
    to that agent (``visible / runs``)."""
    blocks = []
    for context in dict.fromkeys(row.context for row in rows):
        mine = [row for row in rows if row.context == context]
        agents = list(dict.fromkeys(row.agent for row in mine))
        tools = sorted(dict.fromkeys(row.tool for row in mine))
        cells = {(row.tool, row.agent): row.cell for row in mine}
        table = [["tool", *agents]] + [
            [tool, *(cells.get((tool, agent), "-") for agent in agents)] for tool in tools
        ]
        widths = [max(len(line[i]) for line in table) for i in range(len(agents) + 1)]
        lines = [_padded(line, widths) for line in table]
        blocks.append("\n".join([f"context={context}", *(f"  {line}" for line in lines)]))
    return "\n".join(blocks)


def _padded(cells: Sequence[str], widths: Sequence[int]) -> str:
    return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)).rstrip()


def hook_labels(trace: Trace | None) -> list[str]:
    """``Middleware.hook`` of every hook and wrap layer entered in ``trace``, in order."""
    return [
        f"{event.middleware}.{event.hook}"
        for event in trace or ()
        if event.kind in ("hook", "layer") and event.phase == "enter" and event.middleware
    ]


def _distinct(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


class Exercise:
    """Collects what a check does while it runs; ``passed`` and ``failed`` end it."""

    def __init__(self, check: str, *, allow_untested: bool = False) -> None:
        self.check = check
        self.allow_untested = allow_untested
        self.runs = 0
        self.contexts: list[str] = []
        self.attempted: list[str] = []
        self.executed: list[str] = []
        self.hooks: list[str] = []
        self.resumed = 0
        self.untested: list[str] = []
        self.skipped: dict[str, str] = {}
        self.taken_out: tuple[str, ...] = ()
        self.accesses: list[ToolAccess] = []

    def context(self, context: Any, *, shown: str | None = None) -> None:
        """Record a context the check ran (``shown``: its repr, when the check has it)."""
        self.contexts.append(repr(context) if shown is None else shown)

    def hook(self, *labels: str) -> None:
        self.hooks += labels

    def not_tried(self, what: str) -> None:
        self.untested.append(what)

    def skip(self, tool: str, why: str) -> None:
        """Record a tool the check leaves uncalled on purpose, and why."""
        self.skipped[tool] = why

    def removed(self, labels: tuple[str, ...]) -> None:
        """Record the middleware taken out of the factory's stack for the baseline."""
        self.taken_out = labels

    def access(self, row: ToolAccess) -> None:
        self.accesses.append(row)

    def observe(self, run: TargetRun, *, ran: Set[str] = frozenset()) -> None:
        """Count one run of the agent: its calls, executions (``ran``: tools whose function
        was seen running outside the trace), hooks and interrupts."""
        self.runs += 1
        self.attempted += [call.name for call in attempted_calls(run)]
        hooks, executed = _read_trace(run)
        self.executed += sorted(executed | ran)
        self.resumed += run.interrupts_resumed
        self.hooks += hooks

    def report(self) -> CheckReport:
        return assembled(
            CheckReport,
            check=self.check,
            runs=self.runs,
            contexts=_distinct(self.contexts),
            tool_calls_attempted=tuple(self.attempted),
            tool_calls_executed=tuple(self.executed),
            hooks_observed=_distinct(self.hooks),
            interrupts_resumed=self.resumed,
            untested=tuple(self.untested),
            tools_skipped=FrozenDict(sorted(self.skipped.items())),
            middleware_removed=self.taken_out,
            tool_access=tuple(self.accesses),
        )

    def failed(self, error: ContractViolation) -> ContractViolation:
        """Record the report of a check that found a violation; raise what it returns."""
        _exercised.record(self.report())
        return error

    def passed(self, *, counterexample: str, fix: str, trace: Trace | None = None) -> CheckReport:
        """The report, or UntestedError when an obligation was not exercised (with an
        excerpt of ``trace``, the run that shows it, when given)."""
        report = self.report()
        _exercised.record(report)
        if report.untested and not self.allow_untested:
            raise UntestedError(
                _untested_message(report, counterexample, fix, trace),
                check=self.check,
                counterexample=counterexample,
                report=report,
            )
        return report


def _untested_message(
    report: CheckReport, counterexample: str, fix: str, trace: Trace | None
) -> str:
    excerpt_lines = ["Trace excerpt:", excerpt(trace)] if trace is not None else []
    return "\n".join(
        [
            f"hookproof: contract {report.check} could not exercise everything it promises, "
            "so it fails rather than pass on what it did not try.",
            f"Case: {counterexample}",
            "Not tried:",
            *(f"  - {line}" for line in report.untested),
            f"Exercised: {report.summary()}.",
            *excerpt_lines,
            f"Fix: {fix} (docs: {UNTESTED_DOCS})",
            f"If that part cannot apply to this agent, call {report.check}(..., "
            "allow_untested=True): it then passes and its returned report lists what was not "
            "tried (report.untested).",
        ]
    )


# -- reading a run ---------------------------------------------------------------------------


def _history(run: TargetRun) -> Sequence[Message]:
    if run.messages:
        return run.messages
    last = run.final_requests[-1] if run.final_requests else None
    return last.messages if last is not None else ()


def attempted_calls(run: TargetRun) -> list[ToolCall]:
    """The tool calls the model made during the run, in order."""
    return [
        call
        for message in _history(run)
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls
    ]


def answer_to(run: TargetRun, name: str) -> ToolMessage | None:
    """The ToolMessage that answered the model's first call to ``name``, if any did."""
    ids = [call.id for call in attempted_calls(run) if call.name == name]
    for message in _history(run):
        if isinstance(message, ToolMessage) and message.tool_call_id in ids:
            return message
    return None


def executed_tools(run: TargetRun) -> set[str]:
    """Names of the tools whose executor ran: from the trace; for a run without one (it
    raised), from the tool steps it reached and its success answers."""
    if run.trace is None:
        reached = {label[5:] for label in run.reached if label.startswith("tool ")}
        return reached | {
            str(message.name)
            for message in run.messages
            if isinstance(message, ToolMessage) and message.status == "success"
        }
    return {
        str(event.data.get("tool"))
        for event in run.trace
        if event.kind == "tool"
        and event.phase in ("exit", "error")
        and not _unknown_tool_answer(run, event.data.get("call_id"))
    }


def _read_trace(run: TargetRun) -> tuple[list[str], set[str]]:
    """``hook_labels(run.trace)`` and ``executed_tools(run)``, in one pass over the trace."""
    if run.trace is None:
        return [], executed_tools(run)
    hooks, executed = [], set()
    for event in run.trace:
        kind = event.kind
        if kind == "tool":
            if event.phase in ("exit", "error"):
                data = event.data
                if not _unknown_tool_answer(run, data.get("call_id")):
                    executed.add(str(data.get("tool")))
        elif kind in ("hook", "layer") and event.phase == "enter" and event.middleware:
            hooks.append(f"{event.middleware}.{event.hook}")
    return hooks, executed


def _unknown_tool_answer(run: TargetRun, call_id: object) -> bool:
    # An error answer only: a tool that ran may echo any text ("is not a valid tool" as a
    # todo item, drawn by hypothesis), and that does not make it a tool that never ran.
    return any(
        message.role == "tool"
        and getattr(message, "tool_call_id", None) == call_id
        and getattr(message, "status", "success") == "error"
        and " is not a valid tool" in message.text
        for message in run.messages
    )
