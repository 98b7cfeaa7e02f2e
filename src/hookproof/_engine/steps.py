"""The loop's steps (``loop.py``): where a phase leads, how a node hook is entered and left
(as a plain call where nothing needs a coroutine), how a run ends, how a tool turn's calls
are keyed, settled and shown when it pauses."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hookproof._engine.checkpoint import InterruptRaised
from hookproof._engine.dialect import Dialect
from hookproof._engine.executors import missing_sync
from hookproof._engine.run import Run, error_data
from hookproof._engine.types import NodeHook, Phase, RunResult, Stack
from hookproof.messages import ToolCall

__all__ = [
    "PhaseTable",
    "TurnResults",
    "after_nodes",
    "end_run",
    "fail_node",
    "node_hooks",
    "plain_node",
    "resuming",
    "show_finished",
    "tool_key",
]


# Where a declared jump leads from each phase of node hooks (LangChain's graph edges).
_AFTER: dict[Phase, tuple[dict[str, Phase], Phase]] = {
    Phase.BEFORE_AGENT: ({"end": Phase.AFTER_AGENT, "tools": Phase.TOOLS}, Phase.BEFORE_MODEL),
    Phase.BEFORE_MODEL: ({"end": Phase.AFTER_AGENT, "tools": Phase.TOOLS}, Phase.MODEL),
    Phase.AFTER_MODEL: ({"end": Phase.AFTER_AGENT, "model": Phase.BEFORE_MODEL}, Phase.TOOLS),
    Phase.AFTER_AGENT: ({"model": Phase.BEFORE_MODEL, "tools": Phase.TOOLS}, Phase.DONE),
}


def after_nodes(phase: Phase, jump: str | None) -> Phase:
    """The phase after ``phase``'s node hooks, which jumped to ``jump`` (None: no jump)."""
    edges, default = _AFTER[phase]
    return default if jump is None else edges.get(jump, default)


def node_hooks(stack: Stack, phase: Phase) -> tuple[NodeHook, ...]:
    """The node hooks of ``phase`` (one of the four phases of node hooks)."""
    if phase is Phase.BEFORE_MODEL:
        return stack.before_model
    if phase is Phase.AFTER_MODEL:
        return stack.after_model
    return stack.before_agent if phase is Phase.BEFORE_AGENT else stack.after_agent


class PhaseTable:
    """One agent's node hooks by phase, compiled once: ``hooks`` of each of the four phases
    of node hooks, and ``skip``, where a phase without hooks leads (following every phase
    without hooks after it), so a run passes such a phase without a step."""

    __slots__ = ("after", "hooks", "skip")

    def __init__(self, stack: Stack) -> None:
        self.hooks = {phase: node_hooks(stack, phase) for phase in _AFTER}
        self.after = {phase: default for phase, (_, default) in _AFTER.items()}  # no jump
        self.skip: dict[Phase, Phase] = {}
        for phase in _AFTER:
            target = phase
            while target in _AFTER and not self.hooks[target]:
                target = _AFTER[target][1]
            if target is not phase:
                self.skip[phase] = target


def resuming(run: Run) -> bool:
    """Whether the run still holds answers for the step that paused (a resumed run, until
    it leaves that step): only then do steps check which one they are."""
    return run.resume_step is not None or bool(run.answers.by_task)


def end_run(run: Run, nested: bool) -> RunResult:
    """Save a finished run; a nested run that paused pauses the outer run's task."""
    if not run.interrupts:
        if run.checkpointer is not None:  # a run with nowhere to save skips save()'s checks
            run.save()
    elif nested:
        first = run.interrupts[0]
        raise InterruptRaised(first.value, response_schema=first.response_schema)
    return run.result()


def fail_node(run: Run, hook: NodeHook, error: BaseException) -> None:
    run.trace.record("hook", hook.hook, "error", hook.owner, error_data(error))


def plain_node(run: Run, hook: NodeHook) -> str | None:
    """One node hook as a step of a plain run (invoke() with no probe, nobody listening):
    ``_Loop._node``'s synchronous path as one call, with no coroutine to make and await.
    Its trace rows are written here (TraceRecorder.enter and .exit inline)."""
    owner, name = hook.owner, hook.hook
    run.source = label = hook.label
    answers = run.answers  # Run.enter_task inline
    answers.task, answers.children = label, 0
    answers.step = (run.phase._value_, run.hook_index, run.model_calls)
    trace = run.trace
    trace.rows.append(("hook", name, "enter", owner, trace.depth, None))
    trace.depth += 1
    try:
        if hook.sync is None:
            raise missing_sync(owner, name)
        state = run._snapshot  # Run.snapshot inline
        outcome = hook.sync(state if state is not None else run.snapshot(), run.runtime)
    except BaseException as error:
        fail_node(run, hook, error)
        if isinstance(error, StopIteration):  # as leaving the coroutine it replaces does
            raise RuntimeError("coroutine raised StopIteration") from error
        raise
    trace.depth = depth = trace.depth - 1
    trace.rows.append(("hook", name, "exit", owner, depth, None))
    return None if outcome is None else run.apply_node_outcome(outcome, hook)


def tool_key(index: int, call: ToolCall) -> str:
    """A call's key in its turn: by position, since ids may repeat or be missing."""
    return f"{index}:{call.id or call.name}"


def show_finished(run: Run, dialect: Dialect, calls: Sequence[ToolCall]) -> None:
    """A turn paused: what it returns shows the results of the calls that finished, as
    LangGraph's does; its checkpoint keeps the state before the turn (the resume applies
    every call's result, in order, at the turn's end)."""
    finished = run.finished_tools
    if not finished:
        return
    before = dict(run.values)
    for index, call in enumerate(calls):
        key = tool_key(index, call)
        if key in finished:
            dialect.tool_output(run.handle, call, finished[key])
    run.shown = run.snapshot()
    run.values = before
    run.forget_snapshot()


class TurnResults:
    """A tool turn's results as its calls finish, in order. A call that failed or paused
    holds None; ``settle`` then raises the first failure, else the first pause."""

    __slots__ = ("failure", "paused", "results")

    def __init__(self) -> None:
        self.results: list[Any] = []
        self.failure: Exception | None = None
        self.paused: InterruptRaised | None = None

    def finished(self, result: Any) -> None:
        self.results.append(result)

    def failed(self, error: Exception) -> None:
        self.failure = self.failure or error
        self.results.append(None)

    def pause(self, raised: InterruptRaised) -> None:
        self.paused = self.paused or raised
        self.results.append(None)

    def settle(self) -> list[Any]:
        if self.failure is not None:
            raise self.failure
        if self.paused is not None:
            raise self.paused
        return self.results
