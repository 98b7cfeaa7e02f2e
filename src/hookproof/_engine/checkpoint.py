"""Interrupt and resume: the one mechanism every dialect uses to pause a run for a human.

A hook or tool calls ``interrupt(value)``. The first time, the run stops: its state and
position are saved in the agent's checkpointer under the thread id, and invoke returns a
RunResult whose ``interrupts`` hold the value. ``invoke(Command(resume=answer), thread_id=...)``
restores the state, re-runs the step that interrupted, and this time ``interrupt`` returns
``answer``.

A step is made of tasks: one node hook, the model call, or one tool call of the turn. Each task
has its own answers, and every call of a tool turn runs before the run pauses, so one pause
can carry several interrupts (one per task that interrupted). Each interrupt has an id, a
hash of the thread, the step and the task (deterministic: the same run gives the same ids);
``Command(resume={id: answer, ...})`` answers several at once.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from hookproof._support.frozen import FrozenDict
from hookproof.errors import InterruptRaised, UsageError

__all__ = [
    "Answers",
    "Checkpoint",
    "InMemoryCheckpointer",
    "Interrupt",
    "InterruptRaised",
    "NestedCheckpointer",
    "current_answers",
    "interrupt",
    "is_resume_map",
]


@dataclass(frozen=True, slots=True)
class Interrupt:
    """A pause requested by ``interrupt(value)``; ``source`` names the hook or tool, ``id``
    identifies it for ``Command(resume={id: answer})``; ``response_schema`` is the JSON
    Schema of the expected answer when the code that paused gave one (LangGraph's
    ``interrupt(value, response_schema=...)``)."""

    value: Any
    source: str
    id: str = ""
    response_schema: Any = None


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A thread's saved state; ``phase`` and ``hook_index`` say where a paused run resumes."""

    values: FrozenDict
    phase: str = "done"
    hook_index: int = 0
    model_calls: int = 0
    interrupts: tuple[Interrupt, ...] = ()
    extra: FrozenDict = field(default_factory=FrozenDict)

    @property
    def pending(self) -> bool:
        return bool(self.interrupts)


class InMemoryCheckpointer:
    """Keeps the latest checkpoint of each thread in memory (thread-safe)."""

    def __init__(self) -> None:
        self._threads: dict[str, Checkpoint] = {}
        self._lock = threading.Lock()

    def get(self, thread_id: str) -> Checkpoint | None:
        _check_thread_id(thread_id)
        with self._lock:
            return self._threads.get(thread_id)

    def put(self, thread_id: str, checkpoint: Checkpoint) -> None:
        _check_thread_id(thread_id)
        with self._lock:
            self._threads[thread_id] = checkpoint

    def threads(self) -> list[str]:
        with self._lock:
            return sorted(self._threads)


def _check_thread_id(thread_id: object) -> None:
    if not isinstance(thread_id, str):
        raise UsageError(
            f"hookproof: InMemoryCheckpointer takes a thread id (a str), got a "
            f"{type(thread_id).__name__}. It keeps hookproof checkpoints, not LangGraph's: "
            "read a thread of a LangChain-shaped agent with agent.get_state(config); code "
            "that reads LangGraph checkpoints (checkpointer.get(config)['channel_values']) "
            "needs LangChain's create_agent."
        )


@dataclass
class ResumeValues:
    """The answers given to the interrupts of the current step, matched by position: the
    n-th ``interrupt()`` of a step returns the n-th answer once there is one."""

    values: list[Any] = field(default_factory=list)
    used: int = 0

    def next(self) -> tuple[bool, Any]:
        if self.used < len(self.values):
            self.used += 1
            return True, self.values[self.used - 1]
        return False, None

    def reset(self) -> None:
        self.values, self.used = [], 0

    @property
    def answered(self) -> list[Any]:
        """The answers the task has consumed so far (saved when it pauses again)."""
        return self.values[: self.used]


class Answers:
    """A run's answers, per task of the step that was paused; ``task`` is the task running
    now (``interrupt`` reads its answers), ``scope`` what makes ids differ between steps."""

    def __init__(self, thread_id: str | None) -> None:
        self.thread_id = thread_id or ""
        self.by_task: dict[str, ResumeValues] = {}
        # Slots of tasks that have no answers, handed out by ``current``: kept apart so that
        # ``any`` looks only at slots that can hold answers (a long run has one per task).
        self.blank: dict[str, ResumeValues] = {}
        self.task = ""
        self.step: tuple[Any, int, int] | None = None  # (phase value, hook, model calls)
        self.nested: dict[str, Checkpoint] = {}  # paused runs nested in this step's tasks
        self.children = 0

    def enter(self, task: str, step: tuple[Any, int, int]) -> None:
        self.task, self.step, self.children = task, step, 0

    @property
    def scope(self) -> str:
        """The step the running task belongs to, as ids spell it (built only when read:
        most tasks never interrupt)."""
        step = self.step
        return "" if step is None else f"{step[0]}:{step[1]}:{step[2]}"

    def child_thread(self) -> str:
        """The thread of the next run nested in the running task (a subagent a tool runs):
        the same for the same task of the same step, so a resumed task finds its child."""
        self.children += 1
        return f"{self.thread_id}|{self.scope}|{self.task}|{self.children}"

    def current(self) -> ResumeValues:
        found = self.by_task.get(self.task)
        if found is None:
            found = self.blank.get(self.task)
        if found is None:
            found = self.blank[self.task] = ResumeValues()
        return found

    def next(self) -> tuple[bool, Any]:
        return self.current().next()

    def reset(self) -> None:
        self.by_task.clear()
        self.blank.clear()
        self.nested.clear()

    @property
    def any(self) -> bool:
        return any(slot.values for slot in self.by_task.values())

    def interrupt_id(self, task: str | None = None) -> str:
        """The id of the next interrupt of ``task`` (default: the running one): stable for
        the same thread, step, task and number of answers."""
        task = self.task if task is None else task
        slot = self.by_task.get(task)
        answered = len(slot.values) if slot is not None else 0
        return task_hash(f"{self.thread_id}|{self.scope}|{task}|{answered}")


class NestedCheckpointer:
    """Where a run nested in another run's task (a subagent run by a tool, built without a
    checkpointer) keeps its place when it pauses: in the outer run's answers, saved with the
    outer run's pause. Its interrupt pauses the outer run; the outer resume re-runs the task,
    and the nested run resumes where it paused with the task's answer (LangGraph's subgraphs
    resume so, in the parent's checkpointer)."""

    def __init__(self, outer: Answers) -> None:
        self.outer = outer

    def get(self, thread_id: str) -> Checkpoint | None:
        return self.outer.nested.get(thread_id)

    def put(self, thread_id: str, checkpoint: Checkpoint) -> None:
        if checkpoint.pending:
            self.outer.nested[thread_id] = checkpoint
        else:
            self.outer.nested.pop(thread_id, None)


def task_hash(text: str) -> str:
    """32 hex digits, the shape of LangGraph's interrupt ids (so resume maps look alike)."""
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


_ID = re.compile(r"[0-9a-f]{32}")


def is_resume_map(resume: Any) -> bool:
    """A resume answering interrupts by id: a dict whose keys all look like interrupt ids
    (LangGraph's rule, so ``{"decisions": [...]}`` stays one answer)."""
    return isinstance(resume, Mapping) and all(
        isinstance(key, str) and _ID.fullmatch(key) for key in resume
    )


RESUME: ContextVar[Answers | None] = ContextVar("hookproof_resume", default=None)


def current_answers() -> Answers | None:
    """The answers of the run in progress (None outside a run): a dialect that bridges
    another framework's interrupt reads the running task's answers here."""
    return RESUME.get()


def interrupt(value: Any) -> Any:
    """Pause the run with ``value``; on resume this returns the answer: the runtime's
    ``agent.invoke(Command(resume=answer), thread_id=...)``, or the Eino dialect's
    ``agent.resume(checkpoint_id, answer)``. A step may interrupt several times: each resume
    answers the next one."""
    slot = RESUME.get()
    if slot is not None:
        found, answer = slot.next()
        if found:
            return answer
    raise InterruptRaised(value)
