"""Scripts the checks give the target's models."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookproof.models import FinalRequest

__all__ = ["call_once_then_done"]


def call_once_then_done(turn: Any) -> Callable[[FinalRequest], Any]:
    """A stateless script: the given turn while no tool has answered, then a final answer."""

    def script(request: FinalRequest) -> Any:
        answered = any(message.role == "tool" for message in request.messages)
        return "done" if answered else turn

    return script
