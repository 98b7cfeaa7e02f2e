"""The engine's data: phases, compiled hooks and layers, and what a run produced."""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from hookproof._engine.checkpoint import Interrupt
from hookproof._support.frozen import FrozenDict
from hookproof.errors import safe_repr
from hookproof.messages import Message
from hookproof.requests import FinalRequest
from hookproof.trace import Trace, TraceRecorder

__all__ = ["Layer", "LayerContract", "NodeHook", "Phase", "RunResult", "Stack"]


class Phase(enum.Enum):
    """The steps of the loop, in the order a plain run passes them."""

    BEFORE_AGENT = "before_agent"
    BEFORE_MODEL = "before_model"
    MODEL = "model"
    AFTER_MODEL = "after_model"
    TOOLS = "tools"
    AFTER_AGENT = "after_agent"
    DONE = "done"

    # Enum's own hash is a Python function; the loop looks phases up at every step.
    __hash__ = object.__hash__


@dataclass(frozen=True, slots=True)
class NodeHook:
    """A hook run at one point of the loop: (state, runtime) -> None | dict | Command.

    ``jumps`` are the ``jump_to`` targets the hook declared; a jump to any other is ignored
    (and the trace says so). None honours every jump (a dialect's own hooks)."""

    owner: str
    hook: str
    sync: Callable[..., Any] | None
    async_: Callable[..., Awaitable[Any]] | None
    jumps: frozenset[str] | None = None
    label: str = field(init=False, repr=False, compare=False)  # owner.hook, made once

    def __post_init__(self) -> None:
        object.__setattr__(self, "label", f"{self.owner}.{self.hook}")


@dataclass(frozen=True, slots=True)
class LayerContract:
    """A sync wrap hook with the checks its dialect makes at its boundary, for the engine to
    call the hook itself (a checking wrapper around it would be two more calls per layer).

    The engine hands ``hook(value, handler)`` a handler that checks what it is given
    (``check(changed)``, unless its type is exactly ``passes``), runs the inner layers and
    returns ``shown(inner result)`` (None: the inner result as it is). The layer's result is
    ``result(the hook's outcome, the last inner result, or None when none came back)``."""

    hook: Callable[[Any, Callable[[Any], Any]], Any]
    passes: type
    check: Callable[[Any], None]
    shown: Callable[[Any], Any] | None
    result: Callable[[Any, Any], Any]


@dataclass(frozen=True, slots=True)
class Layer:
    """A layer around the model or tool call: ``(value, handler) -> result``.

    The engine passes values between layers as they are: the dialect that compiled the layer
    checks what its hooks receive and return. ``when(value)`` false skips the layer for that
    call (it is not entered and leaves no trace).
    """

    owner: str
    hook: str
    sync: Callable[..., Any] | None
    async_: Callable[..., Awaitable[Any]] | None
    when: Callable[[Any], bool] | None = None
    # The sync hook and its checks, for the engine to call under invoke() (``sync`` is the
    # same hook with the checks wrapped around it).
    contract: LayerContract | None = None


@dataclass(frozen=True, slots=True)
class Stack:
    """Compiled hooks, each tuple in the order it runs (model/tool layers: outermost first)."""

    on_start: tuple[NodeHook, ...] = ()  # every run and every resume, before the loop
    before_agent: tuple[NodeHook, ...] = ()
    before_model: tuple[NodeHook, ...] = ()
    after_model: tuple[NodeHook, ...] = ()
    after_agent: tuple[NodeHook, ...] = ()
    model_layers: tuple[Layer, ...] = ()
    tool_layers: tuple[Layer, ...] = ()


class RunResult:
    """What a run produced: final messages, final state, the trace and the final requests.

    The trace is recorded as plain rows during the run and turned into a Trace on first use;
    the engine's ``messages`` are read from the final state on first use.
    """

    __slots__ = (
        "_messages",
        "_trace",
        "_trace_source",
        "final_requests",
        "interrupts",
        "state",
        "thread_id",
    )

    def __init__(
        self,
        messages: tuple[Message, ...],
        state: FrozenDict,
        trace: TraceRecorder,
        final_requests: tuple[FinalRequest, ...] = (),
        interrupts: tuple[Interrupt, ...] = (),
        thread_id: str | None = None,
    ) -> None:
        """``interrupts`` is non-empty when the run paused; resume it on ``thread_id``."""
        self.interrupts = interrupts
        self.thread_id = thread_id
        self._messages: tuple[Message, ...] | None = messages
        self.state = state
        self.final_requests = final_requests
        self._trace_source: TraceRecorder | None = trace
        self._trace: Trace | None = None

    @classmethod
    def of_state(
        cls,
        state: FrozenDict,
        trace: TraceRecorder,
        final_requests: tuple[FinalRequest, ...],
        interrupts: tuple[Interrupt, ...],
        thread_id: str | None,
    ) -> RunResult:
        """The result whose ``messages`` are ``state["messages"]``, read when first used."""
        result = _new_result(cls)
        result.interrupts, result.thread_id, result.state = interrupts, thread_id, state
        result.final_requests, result._messages = final_requests, None
        result._trace_source, result._trace = trace, None
        return result

    @property
    def messages(self) -> tuple[Message, ...]:
        messages = self._messages
        if messages is None:
            messages = self._messages = tuple(self.state["messages"])
        return messages

    @messages.setter
    def messages(self, messages: tuple[Message, ...]) -> None:
        self._messages = messages

    @property
    def trace(self) -> Trace:
        if self._trace is None:
            assert self._trace_source is not None
            self._trace = self._trace_source.freeze()
            self._trace_source = None
        return self._trace

    @property
    def text(self) -> str:
        """The text of the last message (the agent's answer on a normal finish)."""
        return self.messages[-1].text if self.messages else ""

    def __repr__(self) -> str:
        return f"RunResult(messages={len(self.messages)}, text={safe_repr(self.text, 60)})"


_new_result = object.__new__
