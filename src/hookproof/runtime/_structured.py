"""Structured output on the reference runtime: the mechanism a framework's bridge fills in.

An agent built with ``response_format`` hands it to the bridge of its framework, which
returns a ``StructuredOutput``: what every model request carries at first, the artificial
tools whose calls are the answer (not tool calls to run), and, for each model call, the
request the innermost model is given and what its reply becomes (the messages to add and
the ``structured_response``). The runtime keeps the loop: it writes ``structured_response``
after every model call of such an agent (None when that call produced none) and ends the
run once an answer is in, as LangChain's graph routes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar
from typing import Any, Protocol

from hookproof.messages import AssistantMessage, Message, ToolMessage
from hookproof.requests import ModelRequest, ModelResponse

__all__ = [
    "BoundOutput",
    "StructuredOutput",
    "answered_by_output_tool",
    "bind_call",
    "output_answer",
]


class BoundOutput(Protocol):
    """A response format resolved for one model call."""

    @property
    def request(self) -> ModelRequest:
        """What the innermost model is given (artificial tools, native format, ...)."""

    def answer(self, response: ModelResponse) -> ModelResponse:
        """The model's reply with the structured response parsed (or an error raised)."""


class StructuredOutput(Protocol):
    """A response format compiled once per agent by its framework's bridge."""

    @property
    def response_format(self) -> Any:
        """What each model request's ``response_format`` holds before middleware runs."""

    @property
    def tool_names(self) -> frozenset[str]:
        """The artificial tools declared when the agent was built: a call to one is an
        answer, never executed as a tool."""

    def bind(self, request: ModelRequest) -> BoundOutput:
        """Resolve ``request.response_format`` for this call (the request's model decides
        between the model's native structured output and an artificial tool)."""


# The innermost model call resolves the format once (a framework may ask the model's
# capabilities, and does it once per call); its answer reads the same resolution back.
_BOUND: ContextVar[tuple[ModelRequest, BoundOutput] | None] = ContextVar(
    "hookproof_bound_output", default=None
)


def bind_call(structured: StructuredOutput, call: ModelRequest) -> ModelRequest:
    """The request the innermost model is given for ``call``."""
    bound = structured.bind(call)
    _BOUND.set((call, bound))
    return bound.request


def output_answer(structured: StructuredOutput, call: ModelRequest, response: ModelResponse) -> Any:
    """``response`` with the structured answer of ``call`` (resolved by ``bind_call``)."""
    found = _BOUND.get()
    _BOUND.set(None)
    bound = found[1] if found is not None and found[0] is call else structured.bind(call)
    return bound.answer(response)


def answered_by_output_tool(messages: Sequence[Message], names: frozenset[str]) -> bool:
    """Whether a ToolMessage after the last assistant message answers an artificial tool
    without an error status (LangChain ends the run after such a tools step)."""
    for item in reversed(messages):
        if isinstance(item, AssistantMessage):
            return False
        if isinstance(item, ToolMessage) and item.name in names and item.status != "error":
            return True
    return False
