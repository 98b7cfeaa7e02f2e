"""The one interface a dialect implements to run on the engine.

The engine owns the loop, the order of phases, layer chaining, state and reducers, the trace,
checkpoints, the real-model guard, and telling the run's observer (provenance) what happened.
A dialect owns everything its framework decides differently: what the model layers receive
and return, what the innermost model is given, which tool calls are still pending, how a
tool runs and what its result does to the run, and the limit on model calls.
``hookproof.runtime`` (LangChain v1 semantics) and ``hookproof.eino`` (CloudWeGo Eino
semantics) are the two implementations.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

from hookproof._engine.run import RunHandle
from hookproof._engine.state import StateSpec
from hookproof._engine.types import Stack
from hookproof._support.frozen import FrozenDict
from hookproof.messages import Message, ToolCall
from hookproof.requests import Command, ModelRequest, ModelResponse

__all__ = ["Dialect"]


class Dialect(ABC):
    """A framework's rules, compiled once per agent: its hooks and layers (``stack``), its
    state keys and reducers (``state``), and the answers below. Everything is given when
    it is built; nothing is set on it later.

    Each method runs on every call of its step, so it must be cheap and must keep no
    per-run data on ``self`` (one agent serves concurrent runs): per-run data belongs in the
    run's context or state, reached through the RunHandle.
    """

    # A failing tool call stops the turn at once (LangChain, one call after another), or
    # every call of the turn runs first and the first failure is raised after (Eino).
    runs_whole_tool_turn: ClassVar[bool] = False
    # Whether model_output, pending_calls, tool_input, checked_tool_result, tool_output and
    # ends_turn run only hookproof's code: ainvoke() may then run them on a helper (fused.py).
    plain_bookkeeping: ClassVar[bool] = False

    def __init__(self, *, name: str, model: Any, stack: Stack, state: StateSpec) -> None:
        self.name = name
        self.model = model
        self.stack = stack
        self.state = state

    # -- the model step ---------------------------------------------------------------------

    @abstractmethod
    def before_model_call(self, run: RunHandle) -> None:
        """Refuse a model call over the dialect's limit (``run.model_calls`` made so far)."""

    @abstractmethod
    def model_input(self, run: RunHandle) -> Any:
        """What the outermost model layer receives."""

    @abstractmethod
    def final_request(self, call: Any) -> ModelRequest:
        """What the innermost model receives for ``call`` (recorded as the FinalRequest)."""

    @abstractmethod
    def model_answer(self, call: Any, response: ModelResponse) -> Any:
        """What the innermost model call hands back to the layers."""

    @abstractmethod
    def model_output(self, run: RunHandle, outcome: Any) -> None:
        """Write what the outermost model layer returned into the run's state."""

    # -- the tools step ---------------------------------------------------------------------

    @abstractmethod
    def pending_calls(
        self, run: RunHandle, messages: Sequence[Message]
    ) -> Sequence[ToolCall] | None:
        """The tool calls to run now; None (the model asked for no tool) ends the run, and
        an empty list (every call already answered) asks the model again."""

    @abstractmethod
    def tool_input(self, run: RunHandle, call: ToolCall, state: FrozenDict) -> Any:
        """What the outermost tool layer receives for ``call`` (``state``: before the turn)."""

    @abstractmethod
    def tool_called(self, value: Any) -> tuple[str, str]:
        """The tool name and call id the innermost tool step runs, for the trace."""

    @abstractmethod
    def execute_tool(self, value: Any) -> Any:
        """The innermost tool step under invoke()."""

    @abstractmethod
    async def aexecute_tool(self, value: Any) -> Any:
        """The innermost tool step under ainvoke()."""

    def runs_tool_synchronously(self, value: Any) -> bool:
        """Whether ``aexecute_tool(value)`` would only do what ``execute_tool(value)`` does (no
        awaiting): below a sync wrap hook, ainvoke() then runs the tool on the hook's thread.
        False (the safe answer) awaits ``aexecute_tool`` on the event loop."""
        return False

    @abstractmethod
    def checked_tool_result(self, call: ToolCall, result: Any) -> Any:
        """What the outermost tool layer returned, checked as soon as it returns."""

    def tool_output(self, run: RunHandle, call: ToolCall, result: Any) -> str | None:
        """Write one call's result into the run's state; returns a jump ("end") or None.

        Both dialects answer a call with a ToolMessage, or a Command that updates the state
        (and may jump)."""
        if isinstance(result, Command):
            if result.update:
                run.update(result.update, source="tool")
            return result.goto
        run.update({"messages": [result]}, source="tool")
        return None

    @abstractmethod
    def ends_run(self, calls: Sequence[ToolCall]) -> bool:
        """Whether these calls, once answered, end the run (return-directly tools)."""

    def ends_turn(self, calls: Sequence[ToolCall], results: Sequence[Any]) -> bool:
        """Whether this turn, its calls answered with ``results`` (one per call), ends the
        run. By default ``ends_run(calls)``; a dialect whose decision depends on what ran
        (LangChain: the tool a wrap hook ran in place of the one called) overrides it."""
        return self.ends_run(calls)
