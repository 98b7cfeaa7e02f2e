"""Running the agent for a check: one target, the check's context, interrupt answer and
config, and scripted calls to one tool at a time (through subagents too)."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Any

from hookproof.contracts._args import example_args
from hookproof.contracts._observe import watching
from hookproof.contracts._scripts import call_once_then_done
from hookproof.contracts._subagents import Delegating, subagents_of
from hookproof.models import call
from hookproof.targets import OnInterrupt, Target, TargetRun

__all__ = ["Runner", "ToolCallRun"]


@dataclass(slots=True)  # not frozen: a check makes two per example, and nothing changes them
class Runner:
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
        """A run whose model calls ``name`` once with ``args``, then answers."""
        return self.run(call_once_then_done(call(name, dict(args))))

    def watched(self, name: str, tools: Sequence[Any], script: Any) -> tuple[TargetRun, Set[str]]:
        """One run, and whether the function of tool ``name`` (one of ``tools``) ran in it,
        seen even where a wrap hook calls it outside the trace."""
        with watching({name: tools}, self.target.tool_library_modules) as ran:
            run = self.run(script)
        return run, ran

    def tool_objects(self) -> Mapping[str, list[Any]]:
        """The target's tool objects by name, where it can give them ({} otherwise)."""
        objects = getattr(self.target, "tool_objects", None)
        return objects() if callable(objects) else {}

    def each_tool_called(self, names: Collection[str]) -> Iterator[ToolCallRun]:
        """A run per tool of ``names`` whose model calls it once, in name order; then, when
        the first runs show a ``task`` tool offering subagents, a run per subagent and tool
        in which the main agent delegates the call to that subagent."""
        schemas, objects = self.target.tool_schemas(), self.tool_objects()
        cases: list[tuple[str, str | None]] = [(name, None) for name in sorted(names)]
        subagents: list[str] = []
        while cases:
            name, subagent = cases.pop(0)
            turn = call(name, example_args(schemas.get(name, {})))
            script = call_once_then_done(turn) if subagent is None else Delegating(subagent, turn)
            run, ran = self.watched(name, objects.get(name, []), script)
            yield ToolCallRun(name, subagent, name in schemas, run, ran)
            if subagent is None and not subagents and (subagents := subagents_of(run)):
                cases += [(tool, sub) for sub in subagents for tool in sorted(names)]


@dataclass(frozen=True)
class ToolCallRun:
    """A run in which the model (or, with ``subagent``, that subagent) called tool ``name``."""

    name: str
    subagent: str | None
    registered: bool  # the agent has a tool of that name
    run: TargetRun
    ran: Set[str]  # {name} when the tool's own function was seen running
