"""The loop under invoke(), as plain calls: no coroutine, no event loop.

It runs the same phases in the same order as the coroutine loop (loop.py) and records the
same trace, through the same helpers (steps.py); it leaves out only what needs a coroutine:
awaiting async twins and suspending at a listener's request. A run nobody streams, under
invoke(), takes this path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hookproof._engine.chain import Chains
from hookproof._engine.checkpoint import InterruptRaised
from hookproof._engine.dialect import Dialect
from hookproof._engine.executors import missing_sync
from hookproof._engine.run import Run
from hookproof._engine.steps import (
    NodePhase,
    TurnResults,
    fail_node,
    show_finished,
    tool_key,
)
from hookproof._engine.types import NodeHook, Phase
from hookproof._support.frozen import FrozenDict
from hookproof.messages import ToolCall

__all__ = ["PlainLoop"]


class PlainLoop:
    """The phases of one run under invoke(); each returns the next phase."""

    __slots__ = ("chains", "dialect", "phases", "run", "stack")

    def __init__(
        self, run: Run, dialect: Dialect, chains: Chains, phases: dict[Phase, NodePhase]
    ) -> None:
        self.run = run
        self.dialect = dialect
        self.stack = dialect.stack
        self.chains = chains
        self.phases = phases

    def go(self, phase: Phase, index: int) -> None:
        run = self.run
        try:
            for hook in self.stack.on_start:  # every run and resume; never pause or jump
                self._node(hook)
            while phase is not Phase.DONE:
                run.phase, run.hook_index = phase, index
                if run.resume_step is not None or run.answers.by_task:  # steps.resuming
                    run.step_started(phase, index)
                phase, index = self._step(phase, index), 0
        except InterruptRaised as raised:
            if not run.can_pause:
                run.record_failure(raised)
                raise
            run.pause(raised)
            return
        except BaseException as error:
            run.record_failure(error)
            raise
        run.trace.record("agent", "run", "exit", data={"agent": self.dialect.name})

    def _step(self, phase: Phase, index: int) -> Phase:
        nodes = self.phases.get(phase)
        if nodes is not None:
            hooks, edges, after = nodes
            jump = self._nodes(hooks, index) if hooks else None
            return after if jump is None else edges.get(jump, after)
        if phase is Phase.MODEL:
            self._model_step()
            return Phase.AFTER_MODEL
        return Phase.AFTER_AGENT if self._tools_step() == "end" else Phase.BEFORE_MODEL

    # -- node hooks -------------------------------------------------------------------------

    def _nodes(self, hooks: tuple[NodeHook, ...], start: int) -> str | None:
        run = self.run
        for index in range(start, len(hooks)):
            run.hook_index = index
            if run.resume_step is not None or run.answers.by_task:  # steps.resuming
                run.step_started(run.phase, index)
            jump = self._node(hooks[index])
            if jump is not None:
                return jump  # a jump leaves the phase: later hooks of this phase do not run
        return None

    def _node(self, hook: NodeHook) -> str | None:
        run, owner, name = self.run, hook.owner, hook.hook
        run.source = label = f"{owner}.{name}"  # steps.enter_node, inline: every hook's path
        run.enter_task(label)
        if run.probe is not None:
            run.probe.reached(label)
        trace = run.trace
        trace.record("hook", name, "enter", owner)
        try:
            if hook.sync is None:
                raise missing_sync(owner, name)
            outcome = hook.sync(run.snapshot(), run.runtime)
        except BaseException as error:
            fail_node(run, hook, error)
            raise
        trace.record("hook", name, "exit", owner)  # steps.leave_node, inline
        return None if outcome is None else run.apply_node_outcome(outcome, hook)

    # -- the model and the tools ------------------------------------------------------------

    def _model_step(self) -> None:
        run, dialect = self.run, self.dialect
        dialect.before_model_call(run.handle)
        run.enter_task("model")
        outcome = self.chains.sync_model(run, dialect.model_input(run.handle))
        run.model_calls += 1
        dialect.model_output(run.handle, outcome)

    def _tools_step(self) -> str | None:
        run, dialect = self.run, self.dialect
        calls = dialect.pending_calls(run.handle, run.values["messages"])
        if calls is None:
            return "end"
        state = run.snapshot()  # every call of the turn sees the state before the turn
        if dialect.runs_whole_tool_turn:
            results = self._whole_turn(calls, state)
        else:
            try:
                results = self._each_call(calls, state)
            except InterruptRaised:
                show_finished(run, dialect, calls)
                raise
        run.finished_tools.clear()
        jump: str | None = None
        for call, result in zip(calls, results, strict=True):
            jump = dialect.tool_output(run.handle, call, result) or jump
        return "end" if dialect.ends_turn(calls, results) else jump

    def _each_call(self, calls: Sequence[ToolCall], state: FrozenDict) -> list[Any]:
        """As the coroutine loop's: every call runs even when an earlier one paused; a
        failure is raised at once."""
        turn = TurnResults()
        for index, call in enumerate(calls):
            try:
                turn.finished(self._tool_result(index, call, state))
            except InterruptRaised as raised:
                if not self.run.can_pause:
                    raise
                turn.pause(raised)
        return turn.settle()

    def _whole_turn(self, calls: Sequence[ToolCall], state: FrozenDict) -> list[Any]:
        """As the coroutine loop's: every call runs even when an earlier one failed or
        paused; then the first failure is raised, else the turn pauses once."""
        turn = TurnResults()
        for index, call in enumerate(calls):
            try:
                turn.finished(self._tool_result(index, call, state))
            except InterruptRaised as raised:
                turn.pause(raised)
            except Exception as error:  # noqa: BLE001 - any failure waits for the turn's end
                turn.failed(error)
        return turn.settle()

    def _tool_result(self, index: int, call: ToolCall, state: FrozenDict) -> Any:
        """Run one call, or reuse its result when a resumed step already ran it."""
        run = self.run
        key = tool_key(index, call)
        finished = run.finished_tools
        if key not in finished:
            run.enter_task(f"tool:{key}")
            value = self.dialect.tool_input(run.handle, call, state)
            try:
                result = self.chains.sync_tool(run, value)
            except InterruptRaised as raised:
                run.interrupted(raised)
                raise
            finished[key] = self.dialect.checked_tool_result(call, result)
        return finished[key]
