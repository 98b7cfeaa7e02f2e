"""What a resume answers: every interrupt of the pause, with one value or by id."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookproof.errors import InvalidInputError, UsageError

__all__ = ["resume_answers"]


def resume_answers(
    checkpointer: Any, checkpoint_id: str, value: Any, targets: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The answer of each pending interrupt, by id (the engine's resume map): ``value`` for
    every one, or ``targets`` (Eino's ResumeParams.Targets), whose ids must be pending."""
    pending = _pending(checkpointer, checkpoint_id)
    if targets is None:
        return {item.id: value for item in pending}
    ids = {item.id for item in pending}
    unknown = sorted(key for key in targets if key not in ids)
    if unknown:
        raise InvalidInputError(
            f"hookproof: resume({checkpoint_id!r}, targets=...) names {unknown}, which "
            f"{'is' if len(unknown) == 1 else 'are'} not pending there (pending: "
            f"{sorted(ids)}). Target the ids of the interrupt event's action.interrupts."
        )
    return dict(targets)


def _pending(checkpointer: Any, checkpoint_id: str) -> tuple[Any, ...]:
    if checkpointer is None:
        raise UsageError(
            "hookproof: resume() needs the agent's checkpointer; build it with "
            "ChatModelAgent(..., checkpointer=InMemoryCheckpointer())."
        )
    saved = checkpointer.get(checkpoint_id)
    if saved is None or not saved.pending:
        raise InvalidInputError(
            f"hookproof: resume({checkpoint_id!r}) found no interrupted run saved under "
            "that checkpoint id. Resume only after run(..., checkpoint_id=...) ended with "
            "an interrupt event, on the same agent and checkpointer (a finished run "
            "cannot be resumed)."
        )
    return tuple(saved.interrupts)
