"""Eino's rules on the engine: what ChatModelAgent's ChatModel and ToolsNode steps do."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from hookproof._engine import Dialect, RunHandle, Stack, StateSpec
from hookproof._support.frozen import FrozenDict
from hookproof.eino._model_call import ChatModelInput, model_answer, model_request
from hookproof.eino._notes import EinoNotes
from hookproof.eino._run import EinoRun, appended_messages, eino_messages
from hookproof.eino._tool_layers import ToolsNodeInput, check_known_tools, execute_tool
from hookproof.eino._tools import ToolCall as EinoToolCall
from hookproof.messages import AssistantMessage, Message, ToolCall, ToolMessage

__all__ = ["EinoDialect"]


class EinoDialect(Dialect):
    """ChatModelAgent's semantics. Its own layers carry Eino's values between them: the
    outermost model layer turns the state into a ModelCall and the innermost model step
    turns it back into the request the model receives; the outermost tool layer (the
    ToolsNode) turns a tool call into an Eino ToolCall, which the innermost step runs
    through the tool's endpoint. The ToolsNode runs every call of the last assistant
    message (only tool messages after it answer a call: providers may reuse ids across
    turns); return-directly is decided by the ToolsNode itself."""

    runs_whole_tool_turn: ClassVar[bool] = True  # the ToolsNode runs every call, then fails

    def __init__(self, *, name: str, model: Any, stack: Stack) -> None:
        state = StateSpec([], messages_reducer=eino_messages, append=appended_messages)
        super().__init__(name=name, model=model, stack=stack, state=state)

    provenance_notes = EinoNotes  # the provenance observer of one run

    def before_model_call(self, run: RunHandle) -> None:
        """Eino checks max_iterations before the model hooks run (the ``eino:prepare`` step
        of before_model), against the same count of model calls."""

    def model_input(self, run: RunHandle) -> ChatModelInput:
        eino: EinoRun = run.runtime.context  # type: ignore[assignment]  # _eino_run inline
        return ChatModelInput(eino, run.state, self.model)

    # the engine calls these once per model call: the functions themselves, no method between
    final_request = staticmethod(model_request)
    model_answer = staticmethod(model_answer)

    def model_output(self, run: RunHandle, outcome: AssistantMessage) -> None:
        run.append_messages([outcome], source="model")

    def pending_calls(self, run: RunHandle, messages: Sequence[Message]) -> list[ToolCall] | None:
        for index in range(len(messages) - 1, -1, -1):
            last_ai = messages[index]
            if isinstance(last_ai, AssistantMessage):
                break
        else:
            return None
        if not last_ai.tool_calls:
            return None
        if index == len(messages) - 1:  # the model just answered: no call is answered yet
            pending = list(last_ai.tool_calls)
        else:
            answered = {m.tool_call_id for m in messages[index + 1 :] if isinstance(m, ToolMessage)}
            pending = [call for call in last_ai.tool_calls if call.id not in answered]
        eino = _eino_run(run)
        for call in pending:
            if call.name not in eino.tools:
                check_known_tools(eino, [call.name])  # fails unless unknown tools are answered
        return pending

    def tool_input(self, run: RunHandle, call: ToolCall, state: FrozenDict) -> ToolsNodeInput:
        eino: EinoRun = run.runtime.context  # type: ignore[assignment]  # _eino_run inline
        return ToolsNodeInput(eino, call, state)

    def tool_called(self, value: EinoToolCall) -> tuple[str, str]:
        return value.name, value.call_id

    execute_tool = staticmethod(execute_tool)  # type: ignore[assignment]

    async def aexecute_tool(self, value: EinoToolCall) -> Any:
        return execute_tool(value)

    def checked_tool_result(self, call: ToolCall, result: Any) -> Any:
        return result  # the ToolsNode layer built it: a ToolMessage, or a Command to end

    def ends_run(self, calls: Sequence[ToolCall]) -> bool:
        return False  # the ToolsNode ends the run with Command(goto="end") itself


def _eino_run(run: RunHandle) -> EinoRun:
    return run.runtime.context  # type: ignore[return-value]  # ChatModelAgent runs with its EinoRun there
