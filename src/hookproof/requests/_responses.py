"""What comes back through the layers: Command (a state update, a jump, or a resume),
ModelResponse and ExtendedModelResponse."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic

from typing_extensions import TypeVar as DefaultedTypeVar  # PEP 696 defaults before 3.13

from hookproof._secrets.reprs import redacted_repr
from hookproof.messages import AssistantMessage, Message
from hookproof.requests._immutability import frozen_response

__all__ = ["NO_RESUME", "Command", "ExtendedModelResponse", "ModelResponse"]

# A type parameter as LangChain's (ModelResponse[MyOutput]): it only types the values.
ResponseT = DefaultedTypeVar("ResponseT", default=Any)


class _NoResume:
    def __repr__(self) -> str:
        return "NO_RESUME"

    def __reduce__(self) -> str:  # copies and pickles are the one sentinel, so `is` holds
        return "NO_RESUME"


NO_RESUME: Any = _NoResume()


@redacted_repr
@dataclass(frozen=True, slots=True)
class Command:
    """A state update (and optionally a jump) returned by a hook or a tool; or, passed to
    ``invoke`` as the input, the answer that resumes a paused thread.

    ``goto`` may be "end" (finish the run after after_agent hooks), "model" or "tools".
    ``graph=Command.PARENT`` addresses the graph above this one, as in LangGraph; an agent
    run by hookproof has none, so returning it raises ParentCommandError.
    """

    update: Mapping[str, Any] | None = None
    goto: str | None = None
    resume: Any = NO_RESUME
    graph: str | None = None

    PARENT: ClassVar[str] = "__parent__"  # LangGraph's value, so bridged Commands keep it


@frozen_response
@redacted_repr
@dataclass(frozen=True, slots=True)
class ModelResponse(Generic[ResponseT]):
    """What a model-call handler returns: the new messages (usually one assistant message)."""

    result: tuple[Message, ...]
    structured_response: ResponseT | None = None

    @property
    def message(self) -> AssistantMessage | None:
        for item in reversed(self.result):
            if isinstance(item, AssistantMessage):
                return item
        return None


@frozen_response
@redacted_repr
@dataclass(frozen=True, slots=True)
class ExtendedModelResponse(Generic[ResponseT]):
    """A model response plus a Command, so a wrap_model_call can update state through reducers."""

    model_response: ModelResponse[ResponseT]
    command: Command | None = None
