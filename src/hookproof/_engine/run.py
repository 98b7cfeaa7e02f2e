"""One invocation's data: state and its updates, the trace, pausing, saving and restoring."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookproof._engine.checkpoint import Checkpoint, Interrupt, ResumeValues
from hookproof._engine.observer import UNLISTENED, RunObserver, StepListener
from hookproof._engine.probe import PROBE
from hookproof._engine.state import StateSpec
from hookproof._engine.types import NodeHook, Phase, RunResult
from hookproof._support.frozen import FrozenDict, FrozenList
from hookproof.context import Runtime
from hookproof.errors import ParentCommandError, UsageError
from hookproof.requests import Command, FinalRequest
from hookproof.trace import TraceRecorder

__all__ = ["Run", "RunHandle", "error_data"]


def error_data(error: BaseException) -> dict[str, str]:
    return {"error": type(error).__name__}


class Run:
    """The state of one invocation (an agent is shared; a run is not): ``spec`` its state
    keys, ``checkpointer`` where it saves (None: nowhere), ``observer`` told what happens."""

    def __init__(
        self,
        *,
        spec: StateSpec,
        checkpointer: Any,
        runtime: Runtime[Any],
        observer: RunObserver,
        thread_id: str | None = None,
        listener: StepListener = UNLISTENED,
    ) -> None:
        self.spec = spec
        self.checkpointer = checkpointer
        self.runtime = runtime
        self.observer = observer
        self.listener = listener
        self.trace = TraceRecorder()
        self.values: dict[str, Any] = {"messages": FrozenList()}
        self._snapshot: FrozenDict | None = None
        self.final_requests: list[FinalRequest] = []
        self.thread_id = thread_id
        self.phase, self.hook_index, self.model_calls = Phase.BEFORE_AGENT, 0, 0
        self.source = "agent"
        self.interrupts: tuple[Interrupt, ...] = ()
        self.finished_tools: dict[str, Any] = {}
        self.resume_values = ResumeValues()
        self.resume_step: tuple[Phase, int] | None = None
        self.probe = PROBE.get()
        self.handle = RunHandle(self)

    # -- state ------------------------------------------------------------------------------

    def update(self, update: Mapping[str, Any], *, source: str, owner: str | None = None) -> None:
        where = f"{owner}.{source}" if owner else source
        keys = self.spec.apply(self.values, update, where)
        self._snapshot = None
        self.trace.record("state", "update", "update", owner, {"by": source, "keys": tuple(keys)})
        self.listener.state_updated(update, source)

    def snapshot(self) -> FrozenDict:
        if self._snapshot is None:
            self._snapshot = FrozenDict(self.values)
        return self._snapshot

    def apply_node_outcome(self, outcome: Any, node: NodeHook) -> str | None:
        """A node hook's answer: None, a dict of updates (``jump_to`` jumps, when the hook
        declared that target) or a Command."""
        owner, hook = node.owner, node.hook
        if outcome is None:
            return None
        if isinstance(outcome, Command):
            if outcome.graph is not None:
                raise ParentCommandError.returned(f"{owner}.{hook}", outcome)
            if outcome.update:
                self.update(outcome.update, source=hook, owner=owner)
            return outcome.goto
        if isinstance(outcome, Mapping):
            update = dict(outcome)
            jump = update.pop("jump_to", None)
            if update:
                self.update(update, source=hook, owner=owner)
            return None if jump is None else self._declared(str(jump), node)
        raise UsageError(
            f"hookproof: {owner}.{hook} returned {type(outcome).__name__}; a node hook returns "
            "None, a dict of state updates, or Command(update=...)."
        )

    def _declared(self, jump: str, node: NodeHook) -> str | None:
        if node.jumps is None or jump in node.jumps:
            return jump
        data = {"jump_to": jump, "declared": tuple(sorted(node.jumps))}
        self.trace.record("hook", "jump_ignored", "update", node.owner, data)
        return None

    # -- pausing, saving, restoring ---------------------------------------------------------

    def step_started(self, phase: Phase, index: int) -> None:
        """Answers belong to the step that was paused; any other step starts without them."""
        if self.resume_step is None and not self.resume_values.values:
            return
        if self.resume_step != (phase, index):
            self.resume_values.reset()
            self.resume_step = None

    @property
    def can_pause(self) -> bool:
        return self.thread_id is not None and self.checkpointer is not None

    def pause(self, value: Any) -> None:
        self.interrupts = (Interrupt(value=value, source=self.source),)
        self.trace.record("agent", "interrupt", "update", None, {"source": self.source})
        self.save(phase=self.phase, index=self.hook_index)

    def save(self, *, phase: Phase = Phase.DONE, index: int = 0) -> None:
        if not self.can_pause:
            return
        checkpoint = Checkpoint(
            values=self.spec.tracked(self.snapshot()),  # run-scoped keys stay behind
            phase=phase.value,
            hook_index=index,
            model_calls=self.model_calls,
            interrupts=self.interrupts,
            extra=self._pause_extra() if self.interrupts else FrozenDict(),
        )
        self.checkpointer.put(self.thread_id, checkpoint)

    def _pause_extra(self) -> FrozenDict:
        answered = self.resume_values.values[: self.resume_values.used]
        return FrozenDict(
            {"finished_tools": dict(self.finished_tools), "resume_values": list(answered)}
        )

    def restore(self, checkpoint: Checkpoint) -> None:
        self.values = dict(checkpoint.values)
        self._snapshot = None
        self.model_calls = checkpoint.model_calls if checkpoint.pending else 0
        if checkpoint.pending:
            self.finished_tools = dict(checkpoint.extra.get("finished_tools", {}))

    def record_failure(self, error: BaseException) -> None:
        """A failed run still closes its trace, so a dialect can report it whole."""
        data = {"agent": self.runtime.agent_name, **error_data(error)}
        self.trace.record("agent", "run", "error", None, data)

    def result(self) -> RunResult:
        return RunResult(
            messages=tuple(self.values["messages"]),
            state=self.snapshot(),
            trace=self.trace,
            final_requests=tuple(self.final_requests),
            interrupts=self.interrupts,
            thread_id=self.thread_id,
        )


class RunHandle:
    """What a dialect may touch of a live run: its state, updates, counts and trace events."""

    __slots__ = ("_run", "local")

    def __init__(self, run: Run) -> None:
        self._run = run
        self.local: dict[str, Any] = {}  # a dialect's own data for this run (never saved)

    @property
    def state(self) -> FrozenDict:
        return self._run.snapshot()

    @property
    def runtime(self) -> Runtime[Any]:
        return self._run.runtime

    @property
    def location(self) -> str:
        """The hook, layer, model or tool running now (``agent`` between steps)."""
        return self._run.source

    @property
    def phase(self) -> Phase:
        return self._run.phase

    @property
    def model_calls(self) -> int:
        """Model calls this run has made (a resumed run counts those before the pause)."""
        return self._run.model_calls

    def update(self, update: Mapping[str, Any], *, source: str) -> None:
        self._run.update(update, source=source)

    def result(self) -> RunResult:
        """What the run produced so far (a dialect reports a failed run with its trace)."""
        return self._run.result()

    def record(self, hook: str, owner: str | None, data: Mapping[str, Any]) -> None:
        """Record a dialect event (an emitted agent event, a retry) in the trace."""
        self._run.trace.record("event", hook, "update", owner, data)
