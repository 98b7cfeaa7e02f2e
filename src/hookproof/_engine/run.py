"""One invocation's data: state and its updates, the trace, pausing, saving and restoring."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from hookproof._engine.checkpoint import Answers, Checkpoint, Interrupt
from hookproof._engine.observer import UNLISTENED, RunObserver, StepListener
from hookproof._engine.probe import PROBE
from hookproof._engine.senders import sender_of_new_run
from hookproof._engine.state import (
    KEEP_INDEX_FROM,
    KEPT_INDEXES,
    MESSAGE_TYPES,
    StateSpec,
    carry_index,
)
from hookproof._engine.types import NodeHook, Phase, RunResult
from hookproof._support.frozen import FROZEN_TYPES, FrozenDict, FrozenList
from hookproof._support.history import History
from hookproof.context import Runtime
from hookproof.errors import InterruptRaised, ParentCommandError, UsageError
from hookproof.requests import Command, FinalRequest
from hookproof.trace import TraceRecorder

__all__ = ["Run", "RunHandle", "error_data"]

_MESSAGES_ONLY = ("messages",)


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
        self.listened = listener is not UNLISTENED  # else its calls are skipped: all no-ops
        self.trace = TraceRecorder()
        self.values: dict[str, Any] = {"messages": FrozenList()}
        self._snapshot: FrozenDict | None = None
        self.shown: FrozenDict | None = None  # what a paused run shows, when not its state
        self.final_requests: list[FinalRequest] = []
        self.thread_id = thread_id
        self.phase, self.hook_index, self.model_calls = Phase.BEFORE_AGENT, 0, 0
        self.source = "agent"
        self.interrupts: tuple[Interrupt, ...] = ()
        self.pending: dict[str, Interrupt] = {}  # by task, this step's until the pause
        self.finished_tools: dict[str, Any] = {}
        self.answers = Answers(thread_id)
        self.resume_step: tuple[Phase, int] | None = None
        self.probe = PROBE.get()
        self.loop: Any = None  # the event loop of an ainvoke(), for sync hooks' threads
        self.sender = sender_of_new_run(runtime.agent_name)
        self.handle = RunHandle(self)

    def release(self) -> None:
        """The loop is over: the run lets go of its handle (a dialect keeps its own). Each
        refers to the other, and that cycle would keep all the run made (trace, state,
        requests) alive until the garbage collector came by: one collection every ten runs."""
        del self.handle

    # -- state ------------------------------------------------------------------------------

    def update(self, update: Mapping[str, Any], *, source: str, owner: str | None = None) -> None:
        keys = self.spec.apply(self.values, update, source, owner)
        self._snapshot = None
        trace = self.trace  # its row written here: every update of every run passes
        trace.rows.append(
            ("state", "update", "update", owner, trace.depth, {"by": source, "keys": keys})
        )
        if self.listened:
            self.listener.state_updated(update, source)

    def append_messages(self, items: list[Any], *, source: str) -> None:
        """``update({"messages": items}, source=source)``, with add_messages' common case
        inline (every model and tool step writes one): messages without ids appended."""
        current = self.values["messages"]
        if self.spec.appends and type(current) is History:
            for item in items:
                if type(item) not in MESSAGE_TYPES or item.id is not None:
                    break
            else:
                self.values["messages"] = result = current.extended(items)
                if KEPT_INDEXES and len(current) >= KEEP_INDEX_FROM:  # as add_messages does
                    carry_index(current, result)
                self._messages_appended(items, source)
                return
        elif self.spec.append is not None:  # a dialect's reducer: its own append, inline
            self.values["messages"] = self.spec.append(current, items)
            self._messages_appended(items, source)
            return
        self.update({"messages": items}, source=source)

    def _messages_appended(self, items: list[Any], source: str) -> None:
        """What ``update`` records after an append of ``items`` to the messages."""
        self._snapshot = None
        trace = self.trace
        data = {"by": source, "keys": _MESSAGES_ONLY}
        trace.rows.append(("state", "update", "update", None, trace.depth, data))
        if self.listened:
            self.listener.state_updated({"messages": items}, source)

    def forget_snapshot(self) -> None:
        self._snapshot = None

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
        if type(outcome) is dict or isinstance(outcome, Mapping):  # a dict skips the ABC
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
        if self.resume_step is None and not self.answers.any:
            return
        if self.resume_step != (phase, index):
            self.answers.reset()
            self.resume_step = None

    def enter_task(self, task: str) -> None:
        """``task`` runs now: its ``interrupt()`` calls read its answers, and its interrupt
        ids are its own (the model-call count tells one turn's step from the next)."""
        # _value_ is the member's value as stored: .value is a property, read at every task.
        answers = self.answers  # Answers.enter inline: every step of every run is here
        answers.task, answers.children = task, 0
        answers.step = (self.phase._value_, self.hook_index, self.model_calls)

    @property
    def can_pause(self) -> bool:
        return self.thread_id is not None and self.checkpointer is not None

    def interrupted(self, raised: InterruptRaised) -> None:
        """The running task interrupted: keep its interrupt for the step's pause."""
        task = self.answers.task
        if task in self.pending:
            return
        self.pending[task] = Interrupt(
            value=raised.value,
            source=self.source,
            id=self.answers.interrupt_id(task),
            response_schema=raised.response_schema,
        )

    def pause(self, raised: InterruptRaised) -> None:
        if not self.pending:
            self.interrupted(raised)
        self.interrupts = tuple(self.pending.values())
        data: dict[str, Any] = {"source": self.interrupts[0].source}
        if len(self.interrupts) > 1:
            data["sources"] = tuple(item.source for item in self.interrupts)
        self.trace.record("agent", "interrupt", "update", None, data)
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
        by_task = self.answers.by_task
        answered = {
            task: list(by_task[task].answered) if task in by_task else [] for task in self.pending
        }
        tasks = {item.id: task for task, item in self.pending.items()}
        return FrozenDict(
            {
                "finished_tools": dict(self.finished_tools),
                "resume_values": answered,
                "interrupt_tasks": tasks,
                "nested": dict(self.answers.nested),
            }
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
        state = self.snapshot() if self.shown is None else self.shown
        return RunResult.of_state(
            state, self.trace, tuple(self.final_requests), self.interrupts, self.thread_id
        )


class _Update(Protocol):
    def __call__(self, update: Mapping[str, Any], *, source: str) -> None: ...


class _Append(Protocol):
    def __call__(self, items: list[Any], *, source: str) -> None: ...


class RunHandle:
    """What a dialect may touch of a live run: its state, updates, counts and trace events."""

    __slots__ = ("_run", "append_messages", "local", "runtime", "update")

    def __init__(self, run: Run) -> None:
        self._run = run
        self.local: dict[str, Any] = {}  # a dialect's own data for this run (never saved)
        self.runtime: Runtime[Any] = run.runtime  # a run's runtime never changes
        # update(values, source=...) writes to the run's state: the run's own method, bound
        # here (a wrapper would add a frame to every update).
        self.update: _Update = run.update
        self.append_messages: _Append = run.append_messages

    def set_value(self, key: str, value: Any, *, source: str) -> None:
        """``update({key: value}, source=source)``, inline for a key the run writes as given
        (no reducer, an open state, a frozen value): a dialect's own counter, say."""
        run = self._run
        if key in run.spec.reducers or run.spec.strict or type(value) not in FROZEN_TYPES:
            run.update({key: value}, source=source)
            return
        run.values[key] = value
        run._snapshot = None
        trace = run.trace
        trace.rows.append(
            ("state", "update", "update", None, trace.depth, {"by": source, "keys": (key,)})
        )
        if run.listened:
            run.listener.state_updated({key: value}, source)

    @property
    def state(self) -> FrozenDict:
        run = self._run
        snapshot = run._snapshot  # Run.snapshot inline: dialects read the state at every step
        return snapshot if snapshot is not None else run.snapshot()

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

    def result(self) -> RunResult:
        """What the run produced so far (a dialect reports a failed run with its trace)."""
        return self._run.result()

    def record(self, hook: str, owner: str | None, data: Mapping[str, Any]) -> None:
        """Record a dialect event (an emitted agent event, a retry) in the trace."""
        trace = self._run.trace  # TraceRecorder.record inline: a dialect's every event
        trace.rows.append(("event", hook, "update", owner, trace.depth, data))
