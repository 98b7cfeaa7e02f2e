"""The one agent loop: before_agent, then model <-> tools until the model stops asking for
tools (or a hook jumps), then after_agent. A dialect (``Dialect``) decides what differs
between frameworks; the loop, the order and the bookkeeping are the same for all.

Here the loop is a coroutine: ``ainvoke`` awaits it, and ``invoke`` drives it without an
event loop (every step is called directly, so it never suspends unless a listener asks it to
at a step's end). Tool calls of one model turn run one after another, in the
order the model gave them, so the trace is the same on every run.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from copy import copy
from typing import Any, Generic, TypeVar

from hookproof._engine.chain import Chains
from hookproof._engine.checkpoint import RESUME, InterruptRaised, NestedCheckpointer
from hookproof._engine.dialect import Dialect
from hookproof._engine.executors import drive, missing_sync
from hookproof._engine.observer import (
    UNLISTENED,
    RunObserver,
    StepListener,
    Suspended,
    Unobserved,
)
from hookproof._engine.resume import nested_resume, start
from hookproof._engine.run import Run, RunHandle
from hookproof._engine.senders import RUNNING
from hookproof._engine.steps import (
    PhaseTable,
    TurnResults,
    after_nodes,
    end_run,
    fail_node,
    plain_node,
    resuming,
    show_finished,
    tool_key,
)
from hookproof._engine.types import NodeHook, Phase, RunResult
from hookproof._support.frozen import FrozenDict
from hookproof._support.untimed import untimed
from hookproof.context import Runtime
from hookproof.messages import ToolCall
from hookproof.requests import NO_RESUME

__all__ = ["Engine"]

D = TypeVar("D", bound=Dialect)

# The phases the loop compares at every step, read as module globals (an Enum class's
# attribute is a slower lookup than a global).
_DONE, _MODEL, _TOOLS = Phase.DONE, Phase.MODEL, Phase.TOOLS
_AFTER_MODEL, _BEFORE_MODEL, _AFTER_AGENT = Phase.AFTER_MODEL, Phase.BEFORE_MODEL, Phase.AFTER_AGENT


class Engine(Generic[D]):
    """Runs one dialect's agent: compiled once, shared by every run. ``checkpointer`` keeps
    the threads (None: runs are not saved and cannot pause); ``observe`` makes each run's
    observer (the agents observe provenance; by default nothing is observed)."""

    def __init__(
        self,
        dialect: D,
        *,
        checkpointer: Any = None,
        observe: Callable[[], RunObserver] = Unobserved,
    ) -> None:
        self.dialect = dialect
        self.checkpointer = checkpointer
        self.observe = observe
        self.chains = Chains(dialect)
        self.phases = PhaseTable(dialect.stack)

    def with_checkpointer(self, checkpointer: Any) -> Engine[D]:
        """This engine saving its threads in ``checkpointer``, sharing its chains and phases."""
        engine = copy(self)
        engine.checkpointer = checkpointer
        return engine

    @untimed
    async def run(
        self,
        initial: dict[str, Any] | None,
        context: Any,
        *,
        sync: bool,
        thread_id: str | None = None,
        resume: Any = NO_RESUME,
        fresh: bool = False,
        bind: Callable[[RunHandle], None] | None = None,
        listener: StepListener = UNLISTENED,
    ) -> RunResult:
        """Run from ``initial`` input, or resume a paused thread with ``resume``; ``sync``
        (invoke()) calls every step directly, so ``drive`` runs the coroutine without an
        event loop; otherwise (ainvoke()) async twins are awaited.

        ``fresh`` starts from ``initial`` alone even when the thread has a checkpoint (its next
        save replaces it). ``bind`` receives the RunHandle before anything runs, so a dialect
        can keep per-run data in the run's context. ``listener`` hears the run's steps and
        updates as they happen (a streaming caller's); under invoke() it may suspend the run
        at a step's end.
        """
        run, nested, phase, index = self._begin(
            initial, context, thread_id, resume, fresh, bind, listener
        )
        token, running = RESUME.set(run.answers), RUNNING.set(run.sender)
        try:
            await _Loop(run, self, sync).go(phase, index)
        finally:
            RUNNING.reset(running)
            RESUME.reset(token)
            run.release()
        return end_run(run, nested)

    @untimed
    def run_sync(
        self,
        initial: dict[str, Any] | None,
        context: Any,
        *,
        thread_id: str | None = None,
        resume: Any = NO_RESUME,
        fresh: bool = False,
        bind: Callable[[RunHandle], None] | None = None,
    ) -> RunResult:
        """``run`` under invoke() for a run nobody streams: every step is called directly,
        so the one loop's coroutine is driven without an event loop."""
        coroutine = _run_untimed(
            self,
            initial,
            context,
            sync=True,
            thread_id=thread_id,
            resume=resume,
            fresh=fresh,
            bind=bind,
        )
        return drive(coroutine)  # type: ignore[no-any-return]

    def _begin(
        self,
        initial: dict[str, Any] | None,
        context: Any,
        thread_id: str | None,
        resume: Any,
        fresh: bool,
        bind: Callable[[RunHandle], None] | None,
        listener: StepListener,
    ) -> tuple[Run, bool, Phase, int]:
        """A new run, its input applied or its paused thread restored; whether it is nested
        in another run's task, and the phase and hook it starts at."""
        checkpointer, outer = self.checkpointer, RESUME.get()
        nested = outer is not None and (checkpointer is None or thread_id is None)
        if nested and resume is NO_RESUME:
            assert outer is not None
            checkpointer, thread_id = NestedCheckpointer(outer), outer.child_thread()
            resume = nested_resume(checkpointer.get(thread_id), outer)
        run = Run(
            spec=self.dialect.state,
            checkpointer=checkpointer,
            # A Runtime of its own: the LangChain bridge keeps its view of a run by it.
            runtime=Runtime(context=context, agent_name=self.dialect.name),
            observer=self.observe(),
            thread_id=thread_id,
            listener=listener,
        )
        if bind is not None:
            bind(run.handle)
        if run.listened:
            listener.run_started(run.snapshot)
        run.trace.enter("agent", "run", None, {"agent": self.dialect.name})
        phase, index = start(run, initial, resume, fresh)
        return run, nested, phase, index


# run_sync books its time already: the coroutine it drives is run's own, not its wrapper's.
_run_untimed = inspect.unwrap(Engine.run)


class _Loop:
    """The phases of one run as a coroutine; each returns the next phase."""

    __slots__ = (
        *("async_tool", "chains", "dialect", "phases", "plain", "run", "stack", "sync"),
        "watching",
    )

    def __init__(self, run: Run, engine: Engine[Any], sync: bool) -> None:
        self.run = run
        self.dialect = engine.dialect
        self.stack = engine.dialect.stack
        self.chains = engine.chains
        self.async_tool = engine.chains.async_tool  # a fused turn's visit runs its own
        self.phases = engine.phases
        self.sync = sync  # plain calls, no coroutines
        # Node hooks as plain calls (steps.plain_node): no probe to pause at, nobody to tell.
        self.plain = sync and run.probe is None and not run.listened
        # Whether the run may still hold answers of a paused step (only a resume starts
        # with some; once a step leaves them behind, none come back).
        self.watching = resuming(run)

    async def go(self, phase: Phase, index: int) -> None:
        run, skip = self.run, self.phases.skip
        try:
            for hook in self.stack.on_start:  # every run and resume; never pause or jump
                if self.plain:
                    plain_node(run, hook)
                else:
                    await self._node(hook, step=False)
            while phase is not _DONE:
                if phase in skip and not self.watching:  # no hooks: nothing to run or record
                    phase = skip[phase]
                    continue
                run.phase, run.hook_index = phase, index
                if self.watching:
                    self._step_started(phase, index)
                if phase is _MODEL:  # the model and tools steps inline: a coroutine fewer
                    phase, index = await self._model_step(), 0
                elif phase is _TOOLS:
                    jump = await self._tools_step()
                    phase, index = _AFTER_AGENT if jump == "end" else _BEFORE_MODEL, 0
                else:
                    phase, index = await self._nodes(phase, index), 0
        except InterruptRaised as raised:
            if not run.can_pause:
                run.record_failure(raised)
                raise
            run.pause(raised)
            return
        except BaseException as error:
            run.record_failure(error)
            raise
        run.trace.exit("agent", "run", None, {"agent": self.dialect.name})

    def _step_started(self, phase: Phase, index: int) -> None:
        self.run.step_started(phase, index)
        self.watching = resuming(self.run)

    # -- node hooks -------------------------------------------------------------------------

    async def _nodes(self, phase: Phase, start: int) -> Phase:
        """A phase's node hooks from ``start``, and the phase after them: a jump leaves the
        phase (later hooks of this phase do not run)."""
        run, hooks = self.run, self.phases.hooks[phase]
        for index in range(start, len(hooks)):
            run.hook_index = index
            if self.watching:
                self._step_started(phase, index)
            hook = hooks[index]
            jump = plain_node(run, hook) if self.plain else await self._node(hook)
            if jump is not None:
                return after_nodes(phase, jump)
        return self.phases.after[phase]

    async def _node(self, hook: NodeHook, *, step: bool = True) -> str | None:
        """One node hook as a step: it becomes the running task, its trace rows are written
        here (TraceRecorder.enter and .exit inline: every hook of every run passes here)."""
        run, owner, name = self.run, hook.owner, hook.hook
        run.source = label = hook.label
        answers = run.answers  # Run.enter_task inline: every hook of every run
        answers.task, answers.children = label, 0
        answers.step = (run.phase._value_, run.hook_index, run.model_calls)
        if run.probe is not None:
            await self._pause(label)
        if step and run.listened:
            run.listener.step_started(label)
        trace = run.trace
        trace.rows.append(("hook", name, "enter", owner, trace.depth, None))
        trace.depth += 1
        try:
            if self.sync or hook.async_ is None:  # under ainvoke(), a sync hook still runs
                if hook.sync is None:
                    raise missing_sync(hook.owner, hook.hook)
                state = run._snapshot  # Run.snapshot inline: every hook of every run
                outcome = hook.sync(state if state is not None else run.snapshot(), run.runtime)
            else:
                outcome = await hook.async_(run.snapshot(), run.runtime)
        except BaseException as error:
            fail_node(run, hook, error)
            raise
        trace.depth = depth = trace.depth - 1
        trace.rows.append(("hook", name, "exit", owner, depth, None))
        jump = None if outcome is None else run.apply_node_outcome(outcome, hook)
        if step and run.listened and run.listener.step_finished(label) and self.sync:
            await Suspended()
        return jump

    async def _pause(self, label: str) -> None:
        probe = self.run.probe
        assert probe is not None
        if self.sync:
            probe.reached(label)
        else:
            await probe.areached(label)

    # -- the model and the tools ------------------------------------------------------------

    async def _model_step(self) -> Phase:
        run, dialect = self.run, self.dialect
        dialect.before_model_call(run.handle)
        answers = run.answers  # Run.enter_task inline: every model step
        answers.task, answers.children = "model", 0
        answers.step = (run.phase._value_, run.hook_index, run.model_calls)
        if run.listened:
            run.listener.step_started("model")
        value = dialect.model_input(run.handle)
        if self.sync:
            outcome = self.chains.sync_model(run, value)
        elif (fused := self.chains.fused) is not None and fused.applies(self):
            return await fused.turn(self, value, self._tools_step)  # and the tools (fused.py)
        else:
            outcome = await self.chains.async_model(run, value)
        run.model_calls += 1
        dialect.model_output(run.handle, outcome)
        if run.listened and run.listener.step_finished("model") and self.sync:
            await Suspended()
        return _AFTER_MODEL

    async def _tools_step(self) -> str | None:
        run, dialect = self.run, self.dialect
        calls = dialect.pending_calls(run.handle, run.values["messages"])
        if calls is None:
            return "end"
        if run.listened:
            run.listener.step_started("tools")
        state = run.snapshot()  # every call of the turn sees the state before the turn
        if dialect.runs_whole_tool_turn:
            results = await self._whole_turn(calls, state)
        else:
            try:
                results = await self._each_call(calls, state)
            except InterruptRaised:
                show_finished(run, dialect, calls)
                raise
        run.finished_tools.clear()
        jump: str | None = None
        for call, result in zip(calls, results, strict=True):
            jump = dialect.tool_output(run.handle, call, result) or jump
        if run.listened and run.listener.step_finished("tools") and self.sync:
            await Suspended()
        return "end" if dialect.ends_turn(calls, results) else jump

    async def _each_call(self, calls: Sequence[ToolCall], state: FrozenDict) -> list[Any]:
        """Every call runs even when an earlier one paused, as LangGraph runs each call as a
        task of its own: the turn then pauses with every call's interrupt (the calls that
        finished are kept, so a resume runs only the others). A failure is raised at once."""
        results: list[Any] = []  # TurnResults without failures, inline: every tool turn
        paused: InterruptRaised | None = None
        for index, call in enumerate(calls):
            try:
                results.append(await self._tool_result(index, call, state))
            except InterruptRaised as raised:
                if not self.run.can_pause:
                    raise
                paused = paused or raised
                results.append(None)
        if paused is not None:
            raise paused
        return results

    async def _whole_turn(self, calls: Sequence[ToolCall], state: FrozenDict) -> list[Any]:
        """Every call runs even when an earlier one failed or paused (Eino's ToolsNode);
        then the first failure is raised, else the turn pauses once with every call's
        interrupt (the calls that finished are kept, so a resume runs only the others)."""
        turn = TurnResults()
        for index, call in enumerate(calls):
            try:
                turn.finished(await self._tool_result(index, call, state))
            except InterruptRaised as raised:
                turn.pause(raised)
            except Exception as error:  # noqa: BLE001 - any failure waits for the turn's end
                turn.failed(error)
        return turn.settle()

    async def _tool_result(self, index: int, call: ToolCall, state: FrozenDict) -> Any:
        """Run one call, or reuse its result when a resumed step already ran it."""
        run = self.run
        key = tool_key(index, call)
        if key not in run.finished_tools:
            run.enter_task(f"tool:{key}")
            if run.listened:
                run.listener.tool_started(call)
            value = self.dialect.tool_input(run.handle, call, state)
            try:
                if self.sync:
                    result = self.chains.sync_tool(run, value)
                else:
                    result = await self.async_tool(run, value)
            except InterruptRaised as raised:
                run.interrupted(raised)
                raise
            run.finished_tools[key] = self.dialect.checked_tool_result(call, result)
            if run.listened:
                run.listener.tool_finished(call, run.finished_tools[key])
        return run.finished_tools[key]
