"""The LangChain v1 rules on the engine: what create_agent's model and tool steps do."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from itertools import zip_longest
from typing import Any

from pydantic import ValidationError

from hookproof._engine import Dialect, RunHandle, Stack, StateSpec, run_tool
from hookproof._support.frozen import FrozenDict, FrozenList
from hookproof.context import ToolRuntime
from hookproof.errors import (
    InvalidInputError,
    MaxIterationsExceeded,
    ParentCommandError,
    ToolError,
    UnexecutableToolError,
    ordinal,
)
from hookproof.messages import (
    AssistantMessage,
    Message,
    RemoveMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    text_message,
)
from hookproof.provenance import ProvenanceNotes, provenance_observer
from hookproof.requests import Command, ModelRequest, ModelResponse, ToolCallRequest
from hookproof.runtime._foreign import bridge_for, native_model, native_structured_output
from hookproof.runtime._invalid_calls import answer_invalid_calls
from hookproof.runtime._layers import Answer, check_commands
from hookproof.runtime._structured import (
    StructuredOutput,
    answered_by_output_tool,
    bind_call,
    output_answer,
)
from hookproof.runtime._turns import check_no_call_lost, last_turn
from hookproof.tools import Tool, ToolSchema, tool_result_text, validation_message

__all__ = ["LangChainDialect"]

_tuple_new = tuple.__new__  # an Answer without NamedTuple's Python-level __new__
_TOOL_STEP = "tool_step_writes"  # RunHandle.local key: what this tools step wrote so far
_REPAIRED = "repaired_history"  # RunHandle.local key: the history with invalid calls answered
_SETTLED = "settled_history"  # RunHandle.local key: the last history with none to answer


class LangChainDialect(Dialect):
    """create_agent's semantics: the model sees the registered tools; a call of the last
    assistant message is pending until a ToolMessage after that message answers its id; a
    tool marked ``return_direct`` ends the run when every tool of the turn is one;
    ``max_iterations`` bounds the model calls.

    For provenance, ``tool_origins`` names who registered each tool (absent: the agent's
    own ``tools=``); the system prompt's line origins come with each run's observer.

    With ``structured`` (a response format its bridge compiled), every model call writes
    ``structured_response`` (None when it produced none), calls of its artificial tools are
    answers rather than tools to run, and the run ends once an answer is in."""

    plain_bookkeeping = True  # given the engine's own reducers (fused.py checks them)
    structured: StructuredOutput | None = None
    output_tools: frozenset[str] = frozenset()

    def __init__(
        self,
        *,
        name: str,
        model: Any,
        stack: Stack,
        state: StateSpec,
        tools: tuple[Tool, ...],
        system_message: SystemMessage | None,
        max_iterations: int,
        tool_origins: Mapping[str, str],
        structured: StructuredOutput | None = None,
    ) -> None:
        super().__init__(name=name, model=model, stack=stack, state=state)
        self.tools = tools
        self.tools_by_name = {item.name: item for item in tools}
        self.request_tools: FrozenList[Tool | ToolSchema] = FrozenList(tools)
        self.system_message = system_message
        self.max_iterations = max_iterations
        self.tool_origins = tool_origins
        self.structured = structured
        self.output_tools = frozenset[str]() if structured is None else structured.tool_names
        self._any_return_direct = any(item.return_direct for item in tools)
        # Set by Agent.with_message_name: LangChain names each AI message after its agent.
        self.message_name: str | None = None
        # The agent's own model, when no framework's bridge runs it (the common case).
        self._native_own_model = model if bridge_for(model) is None else None

    def provenance_observer(
        self, system_origins: tuple[str, ...] = ()
    ) -> Callable[[], ProvenanceNotes]:
        """What makes the provenance observer of each run (the engine makes one per run);
        ``system_origins`` names the author of each system-prompt line where not all the
        agent's (a harness)."""
        return provenance_observer(
            self.tool_origins,
            request_of=_request_of,
            system_origins=system_origins,
            agent_edits_last=True,
        )

    # -- the model step ---------------------------------------------------------------------

    def before_model_call(self, run: RunHandle) -> None:
        calls = run.model_calls + 1
        if calls > self.max_iterations:
            raise MaxIterationsExceeded(
                f"hookproof: agent {self.name!r} was about to call the model a "
                f"{ordinal(calls)} time, over max_iterations={self.max_iterations}. The model "
                "keeps asking for tools; check the script or the loop, or raise max_iterations."
            )

    def model_input(self, run: RunHandle) -> ModelRequest:
        state = run.state
        history = state["messages"]
        messages = answer_invalid_calls(history, run.local.get(_SETTLED, ()))
        repaired = messages is not history
        run.local[_REPAIRED] = messages if repaired else None
        run.local[_SETTLED] = () if repaired else history
        return ModelRequest(
            model=self.model,
            messages=messages,
            system_message=self.system_message,
            tools=self.request_tools,
            response_format=None if self.structured is None else self.structured.response_format,
            state=state,
            runtime=run.runtime,
        )

    def final_request(self, call: ModelRequest) -> ModelRequest:
        if call.tools is not self.request_tools:  # the agent's own tools are all executable
            self._check_executable(call)
        structured = None if call.response_format is None else self._structured_for(call)
        request = call if structured is None else bind_call(structured, call)
        if request.model is self._native_own_model and request.model is not None:
            return request
        model = native_model(request.model)  # a LangChain chat model is called through its bridge
        return request if model is request.model else request.override(model=model)

    def model_answer(self, call: ModelRequest, response: ModelResponse) -> Answer:
        if self.message_name is not None:  # before the structured answer, as LangChain
            response = _named(response, self.message_name)
        structured = None if call.response_format is None else self._structured_for(call)
        if structured is not None:
            response = output_answer(structured, call, response)
        return _tuple_new(Answer, (response, ()))

    def _structured_for(self, call: ModelRequest) -> StructuredOutput | None:
        """The rules of the request's response format: the agent's own, or (a middleware set
        a format on an agent built without one) its bridge's with no artificial tools
        declared; None when no bridge takes it (the model is given it as it is)."""
        if call.response_format is None:
            return None
        if self.structured is not None:
            return self.structured
        return native_structured_output(None, call.response_format, call.model)  # type: ignore[no-any-return]

    def model_output(self, run: RunHandle, outcome: Answer) -> None:
        commands = outcome.commands
        if commands:
            check_commands(commands)
        response = outcome.response
        check_no_call_lost(run.state["messages"], response.result)
        messages = _written_messages(run, response.result)
        if not commands and response.structured_response is None and self.structured is None:
            run.append_messages(messages, source="model")  # the common case: messages only
            return
        written: dict[str, Any] = {"messages": messages}
        # None leaves an earlier value, as LangChain does, unless the agent has a response
        # format: then every call clears it, so an answer is always this call's.
        if response.structured_response is not None or self.structured is not None:
            written["structured_response"] = response.structured_response
        said = (
            [(c.update, f"{owner}.wrap_model_call") for c, owner in commands if c.update]
            if commands
            else ()  # most responses carry no Command: no comprehension frame
        )
        if said:  # one step: a key without reducer is written once, checked before any write
            step: dict[str, str] = {}
            for update, source in [(written, "the model's response"), *said]:
                self.state.claim(step, update, source)
        run.update(written, source="model")
        for update, _source in said:
            run.update(update, source="wrap_model_call")

    def _check_executable(self, request: ModelRequest) -> None:
        if request.tools is self.request_tools or self.stack.tool_layers:
            return
        unknown = sorted(item.name for item in request.tools if item.name not in self.tools_by_name)
        if unknown:
            owners = [layer.owner for layer in self.stack.model_layers]
            # LangChain's words first (a ValueError naming "Unknown tools:"): tests written
            # for create_agent match on them.
            raise UnexecutableToolError(
                f"Middleware added tools that the agent cannot execute. Unknown tools: "
                f"{unknown}. Registered tools: {sorted(self.tools_by_name)}. hookproof: the "
                "model request shows tools that are not registered in tools= while no "
                f"middleware has wrap_tool_call (wrap_model_call layers: {owners}). The model "
                "could call them and every call would fail. A tool added at run time needs "
                "both hooks: wrap_model_call to show its schema and wrap_tool_call to execute "
                "it; or register it in create_agent(tools=[...])."
            )

    # -- the tools step ---------------------------------------------------------------------

    def pending_calls(self, run: RunHandle, messages: Sequence[Message]) -> list[ToolCall] | None:
        """Calls of the last assistant message that no ToolMessage after it answers yet, as
        LangChain reads them: models reuse ids across turns, so an older answer with the
        same id answers an older call, not this one. Two calls of one turn with one id
        both run. When a hook answered all of them (a human rejected a call, say), none run
        and the model is asked again."""
        run.local[_TOOL_STEP] = {}  # a tools step starts: tool_output claims its writes here
        if self.output_tools and not self._runs_tools:
            return self._until_answered(run)
        last_ai, answered = last_turn(messages)
        if last_ai is None or not last_ai.tool_calls:
            return None
        outputs = self.output_tools
        pending = [c for c in last_ai.tool_calls if c.id not in answered and c.name not in outputs]
        if pending or self.structured is None:
            return pending
        return self._until_answered(run)

    @property
    def _runs_tools(self) -> bool:
        """Whether the agent has a tools step at all (LangChain builds its tool node only
        for tools, or for a middleware that wraps tool calls)."""
        return bool(self.tools) or bool(self.stack.tool_layers)

    def _until_answered(self, run: RunHandle) -> list[ToolCall] | None:
        """With a response format, the run ends once this model call's answer is in, and
        asks the model again while it is not (LangChain's retry of a failed answer)."""
        return None if run.state.get("structured_response") is not None else []

    def tool_input(self, run: RunHandle, call: ToolCall, state: FrozenDict) -> ToolCallRequest:
        runtime = ToolRuntime(
            context=run.runtime.context, state=state, tool_call_id=call.id, tool_call=call
        )
        tool = self.tools_by_name.get(call.name)
        return ToolCallRequest(tool_call=call, tool=tool, state=state, runtime=runtime)

    def tool_called(self, value: ToolCallRequest) -> tuple[str, str]:
        return value.tool_call.name, value.tool_call.id or ""

    def execute_tool(self, value: ToolCallRequest) -> ToolMessage | Command:
        prepared = self._prepare(value)
        if isinstance(prepared, ToolMessage):
            return prepared
        tool, kwargs = prepared
        try:
            result = run_tool(tool, kwargs)
        except ToolError as error:
            return _error_message(str(error), value.tool_call.id or "", value.tool_call.name)
        return _tool_message(result, value.tool_call.id or "", value.tool_call.name)

    async def aexecute_tool(self, value: ToolCallRequest) -> ToolMessage | Command:
        prepared = self._prepare(value)
        if isinstance(prepared, ToolMessage):
            return prepared
        tool, kwargs = prepared
        try:
            if tool.coroutine is not None:
                result = await tool.coroutine(**kwargs)
            else:
                result = tool.func(**kwargs)  # type: ignore[misc]
        except ToolError as error:
            return _error_message(str(error), value.tool_call.id or "", value.tool_call.name)
        return _tool_message(result, value.tool_call.id or "", value.tool_call.name)

    def runs_tool_synchronously(self, value: ToolCallRequest) -> bool:
        return value.tool is None or value.tool.coroutine is None

    def _prepare(self, value: ToolCallRequest) -> ToolMessage | tuple[Tool, dict[str, Any]]:
        call, tool = value.tool_call, value.tool
        call_id = call.id or ""
        if tool is None:
            valid = ", ".join(sorted(self.tools_by_name))
            text = f"Error: {call.name} is not a valid tool, try one of [{valid}]."
            return _error_message(text, call_id, call.name)
        runtime = value.runtime or ToolRuntime(state=value.state, tool_call_id=call_id)
        try:
            return tool, tool.prepare(call.args, runtime)
        except ValidationError as error:
            return _error_message(validation_message(call.name, error), call_id, call.name)

    def checked_tool_result(self, call: ToolCall, result: Any) -> Any:
        """A Command from a tool must answer the call with a ToolMessage, or the conversation
        would hold a tool call without a result (providers reject that)."""
        if not isinstance(result, Command):
            return result
        if result.graph is not None:
            where = f"tool {call.name!r} (call {call.id!r}) or a wrap_tool_call around it"
            raise ParentCommandError.returned(where, result)
        messages = (result.update or {}).get("messages", ())
        items = messages if isinstance(messages, list | tuple) else [messages]
        if any(isinstance(m, ToolMessage) and m.tool_call_id == (call.id or "") for m in items):
            return result
        raise InvalidInputError(
            f"hookproof: tool {call.name!r} returned a Command without a ToolMessage for its "
            f"call {call.id!r}. The model's tool call would stay unanswered. Put "
            f"ToolMessage(content=..., tool_call_id=runtime.tool_call_id) in "
            "Command(update={'messages': [...]})."
        )

    def tool_output(self, run: RunHandle, call: ToolCall, result: Any) -> str | None:
        if isinstance(result, Command) and result.update:
            source = f"tool {call.name!r} (call {call.id!r})"
            self.state.claim(run.local[_TOOL_STEP], result.update, source)
        jump = super().tool_output(run, call, result)
        if self.output_tools and answered_by_output_tool(run.state["messages"], self.output_tools):
            return "end"  # the model's answer came beside these calls: once they ran, it stands
        return jump

    def ends_run(self, calls: Sequence[ToolCall]) -> bool:
        return self.ends_turn(calls, ())

    def ends_turn(self, calls: Sequence[ToolCall], results: Sequence[Any]) -> bool:
        """As LangChain: the run ends after a turn whose registered tools are all marked
        ``return_direct`` (calls to unknown tools do not count); one that is not asks the
        model again. The tool that ran counts, named by its ToolMessage (a wrap_tool_call
        may run another tool than the one called: a reviewer's edit)."""
        if not self._any_return_direct:
            return False
        tools = self.tools_by_name
        names = [_ran_name(call, result, tools) for call, result in zip_longest(calls, results)]
        ran = [tool for name in names if (tool := tools.get(name)) is not None]
        return bool(ran) and all(tool.return_direct for tool in ran)


def _ran_name(call: ToolCall, result: Any, tools: Mapping[str, Tool]) -> str:
    name = result.name if isinstance(result, ToolMessage) else None
    return name if name is not None and name in tools else call.name


def _written_messages(run: RunHandle, result: Sequence[Message]) -> list[Any]:
    """The response's messages; after invalid calls were answered, the whole repaired history
    before them (as LangChain's model node writes it), so the answers stay in the state."""
    repaired = run.local.get(_REPAIRED)
    if repaired is None:
        return list(result)
    return [RemoveMessage(id=RemoveMessage.ALL), *repaired, *result]


def _request_of(value: Any) -> ModelRequest | None:
    return value if isinstance(value, ModelRequest) else None


def _tool_message(value: Any, call_id: str, name: str) -> ToolMessage | Command:
    if isinstance(value, Command):
        return value
    if isinstance(value, ToolMessage):
        return value if value.tool_call_id == call_id else value.override(tool_call_id=call_id)
    return text_message(ToolMessage, tool_result_text(value), tool_call_id=call_id, name=name)


def _error_message(text: str, call_id: str, name: str) -> ToolMessage:
    return text_message(ToolMessage, text, tool_call_id=call_id, name=name, status="error")


def _named(response: ModelResponse, name: str) -> ModelResponse:
    """``response`` with its assistant messages named ``name`` (LangChain's agent name)."""
    named = tuple(
        item.model_copy(update={"name": name}) if isinstance(item, AssistantMessage) else item
        for item in response.result
    )
    return dataclasses.replace(response, result=named)
