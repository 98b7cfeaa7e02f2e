"""Where a run starts: fresh input, a thread's saved state, or a paused thread resumed with
answers (one answer, or answers by interrupt id), and the place a nested run resumes."""

from __future__ import annotations

from typing import Any

from hookproof._engine.checkpoint import (
    Answers,
    Checkpoint,
    Interrupt,
    InterruptRaised,
    ResumeValues,
    is_resume_map,
)
from hookproof._engine.run import Run
from hookproof._engine.types import Phase
from hookproof.errors import AmbiguousResumeError, InvalidInputError
from hookproof.requests import NO_RESUME

__all__ = ["nested_resume", "start"]


def start(run: Run, initial: dict[str, Any] | None, resume: Any, fresh: bool) -> tuple[Phase, int]:
    checkpoint = None if fresh else _checkpoint(run)
    if resume is not NO_RESUME:
        if checkpoint is None or not checkpoint.pending:
            raise InvalidInputError(
                f"hookproof: Command(resume=...) was given for thread {run.thread_id!r}, "
                "which has no pending interrupt. Resume only a run that returned "
                "interrupts, on the same agent, checkpointer and thread_id."
            )
        run.restore(checkpoint)
        _answer(run, checkpoint, resume)
        step = (Phase(checkpoint.phase), checkpoint.hook_index)
        run.resume_step = step
        return step
    if checkpoint is not None:
        if checkpoint.pending:
            raise InvalidInputError(
                f"hookproof: thread {run.thread_id!r} is paused at an interrupt; resume it "
                "with agent.invoke(Command(resume=...), thread_id=...) before sending new "
                "input."
            )
        run.restore(checkpoint)
    if initial:
        run.update(initial, source="input")
    return Phase.BEFORE_AGENT, 0


def nested_resume(paused: Checkpoint | None, outer: Answers) -> Any:
    """A nested run that paused resumes with its outer task's answer; without one (the
    outer resume answered another interrupt) it is still waiting: the outer task pauses
    again with the same interrupt."""
    if paused is None or not paused.pending:
        return NO_RESUME
    found, answer = outer.next()
    if found:
        return answer
    first = paused.interrupts[0]
    raise InterruptRaised(first.value, response_schema=first.response_schema)


def _answer(run: Run, checkpoint: Checkpoint, resume: Any) -> None:
    """Give each paused task its answers: those it had, and the new one (by interrupt id in
    a resume map; a single answer only when one interrupt is pending)."""
    answered = checkpoint.extra.get("resume_values", {})
    tasks = checkpoint.extra.get("interrupt_tasks", {})
    by_task = run.answers.by_task
    run.answers.nested.update(checkpoint.extra.get("nested", {}))
    for task, values in answered.items():
        by_task[task] = ResumeValues(list(values))
    if is_resume_map(resume):
        for pending in checkpoint.interrupts:
            if pending.id in resume and pending.id in tasks:
                by_task[tasks[pending.id]].values.append(resume[pending.id])
        return
    if len(checkpoint.interrupts) > 1:
        raise _ambiguous(run, checkpoint.interrupts)
    task = tasks.get(checkpoint.interrupts[0].id)
    if task is not None:
        by_task[task].values.append(resume)


def _ambiguous(run: Run, pending: tuple[Interrupt, ...]) -> AmbiguousResumeError:
    ids = ", ".join(f"{item.id!r} ({item.source})" for item in pending)
    return AmbiguousResumeError(
        "When there are multiple pending interrupts, you must specify the interrupt id when "
        f"resuming. hookproof: thread {run.thread_id!r} waits on {len(pending)} interrupts "
        f"({ids}), and one answer cannot say which it is for. Resume with "
        "Command(resume={interrupt.id: answer, ...}), one answer per interrupt."
    )


def _checkpoint(run: Run) -> Checkpoint | None:
    checkpointer = run.checkpointer
    if run.thread_id is None or checkpointer is None:
        return None
    return checkpointer.get(run.thread_id)  # type: ignore[no-any-return]
