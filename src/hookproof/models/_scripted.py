"""ScriptedModel: a model that plays a fixed script of turns, or a function of the request."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from hookproof._support.frozen import FrozenDict, FrozenList, freeze
from hookproof.errors import ScriptExhausted, UsageError, ordinal, safe_repr
from hookproof.messages import AssistantMessage, ToolCall, construct, text_message
from hookproof.requests import FinalRequest

__all__ = ["ScriptedCall", "ScriptedModel", "Turn", "call"]


@dataclass(frozen=True, slots=True)
class ScriptedCall:
    """One tool call the script will make; the id is assigned when it is played."""

    name: str
    args: FrozenDict = field(default_factory=FrozenDict)
    id: str | None = None


def call(
    name: str, args: Mapping[str, Any] | None = None, *, id: str | None = None
) -> ScriptedCall:
    """A scripted tool call: ``call("search", {"query": "x"})``."""
    if not isinstance(name, str) or not name:
        raise UsageError(f"hookproof: call() needs a tool name, got {name!r}.")
    if args is not None and type(args) is not dict and not isinstance(args, Mapping):
        raise UsageError(
            f"hookproof: call({name!r}, ...) takes the arguments as a dict, got "
            f"{type(args).__name__}."
        )
    return ScriptedCall(name, freeze(dict(args or {})), id)


Turn: TypeAlias = str | ScriptedCall | Sequence[ScriptedCall] | AssistantMessage | BaseException
TurnFunction: TypeAlias = Callable[[FinalRequest], Turn]


def _describe_turn_error(turn: object, index: int) -> UsageError:
    return UsageError(
        f"hookproof: turn {index} of the script is a {type(turn).__name__} "
        f"({safe_repr(turn, 60)}). A turn is a str (the answer), call(name, args), a list of "
        "calls, an AssistantMessage or an exception instance to raise."
    )


class ScriptedModel:
    """A deterministic model: plays ``turns`` in order, or asks ``fn(request)`` each time.

    Tool-call ids are ``call_0``, ``call_1``, ... in the order they are played. When the
    script runs out, ScriptExhausted names the call and shows the request. Safe to share
    between threads: each call takes the next turn under a lock.
    """

    __test__ = False
    hookproof_offline = True
    hookproof_sync_ainvoke = True  # ainvoke only calls invoke: the engine may call invoke

    def __init__(
        self,
        turns: Sequence[Turn] | TurnFunction,
        *,
        name: str = "scripted",
        provider: str | None = None,
        profile: Mapping[str, Any] | None = None,
    ) -> None:
        """``provider`` and ``name`` identify the model to harness profiles; ``profile`` is
        model metadata such as ``{"max_input_tokens": 8000}``."""
        if type(turns) is list or type(turns) is tuple:  # what checks pass, without the ABC
            self._function: TurnFunction | None = None
            self._turns: tuple[Turn, ...] = tuple(turns)
        elif callable(turns):
            self._function = turns
            self._turns = ()
        elif isinstance(turns, str | bytes) or not isinstance(turns, Sequence):
            raise UsageError(
                f"hookproof: ScriptedModel takes a list of turns or a function, got "
                f"{type(turns).__name__}. Example: ScriptedModel([call('search', {{}}), 'done'])."
            )
        else:
            self._function = None
            self._turns = tuple(turns)
        self.name = name
        self.provider = provider
        self.profile = dict(profile) if profile else {}
        self.calls = 0
        self._next_id = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        source = "function" if self._function else f"{len(self._turns)} turns"
        return f"ScriptedModel(name={self.name!r}, {source}, calls={self.calls})"

    @property
    def remaining(self) -> int:
        """Turns not yet played (0 for a function script)."""
        return max(len(self._turns) - self.calls, 0) if self._function is None else 0

    def invoke(self, request: FinalRequest) -> AssistantMessage:
        with self._lock:
            index = self.calls
            self.calls += 1
            turn = self._turn(index, request)
            return self._play(turn, index)

    async def ainvoke(self, request: FinalRequest) -> AssistantMessage:
        return self.invoke(request)

    def _turn(self, index: int, request: FinalRequest) -> Turn:
        if self._function is not None:
            return self._function(request)
        if index >= len(self._turns):
            raise ScriptExhausted(
                f"hookproof: ScriptedModel {self.name!r} was called a {ordinal(index + 1)} time "
                f"but its script has {len(self._turns)} turn"
                f"{'' if len(self._turns) == 1 else 's'}. The request it received:\n"
                f"{request.summary()}\nAdd a turn for this call, or find out why the agent "
                "called the model again."
            )
        return self._turns[index]

    def _play(self, turn: Turn, index: int) -> AssistantMessage:
        if isinstance(turn, BaseException):
            raise turn
        if isinstance(turn, AssistantMessage):
            return self._with_ids(turn)
        if isinstance(turn, str):
            return text_message(AssistantMessage, turn)
        if isinstance(turn, ScriptedCall):
            return self._calls_message([turn])
        if isinstance(turn, list | tuple) and all(isinstance(item, ScriptedCall) for item in turn):
            return self._calls_message(turn)
        raise _describe_turn_error(turn, index)

    def _new_id(self) -> str:
        value = f"call_{self._next_id}"
        self._next_id += 1
        return value

    def _calls_message(self, calls: Sequence[ScriptedCall]) -> AssistantMessage:
        return text_message(
            AssistantMessage, "", tool_calls=FrozenList(map(self._tool_call, calls))
        )

    def _tool_call(self, scripted: ScriptedCall) -> ToolCall:
        return construct(
            ToolCall, name=scripted.name, args=scripted.args, id=scripted.id or self._new_id()
        )

    def _with_ids(self, message: AssistantMessage) -> AssistantMessage:
        if all(item.id for item in message.tool_calls):
            return message
        calls = [
            item if item.id else item.override(id=self._new_id()) for item in message.tool_calls
        ]
        return message.override(tool_calls=calls)
