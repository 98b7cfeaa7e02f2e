"""The tool-call layers of spec section 4, as engine Layers (outermost first):

tools node (lookup, errors, return-directly) > event sender > ToolsConfig tool middlewares
> legacy AgentMiddleware.wrap_tool_call > cancel monitor (streamable endpoints) > handler
wrappers > callbacks > the tool's own run. A call passes between them as a ToolCall; the
result between them is what the selected endpoint returns (str, ToolResult or a stream).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hookproof._engine import Layer, RunHandle
from hookproof._engine.checkpoint import InterruptRaised
from hookproof._support.frozen import FrozenDict
from hookproof.eino._callbacks import RunInfo, around
from hookproof.eino._context import RunContext
from hookproof.eino._handlers import EventSenderToolWrapper, ToolMiddleware, overrides
from hookproof.eino._model_call import Inner, callbacks_layers, sync_layer
from hookproof.eino._records import AgentEvent, ToolArgument, ToolContext, ToolInput, ToolOutput
from hookproof.eino._run import HELD_KEY, EinoRun
from hookproof.eino._settings import AgentSettings
from hookproof.eino._streams import replay
from hookproof.eino._tools import (
    ENHANCED,
    STREAMABLE,
    ToolCall,
    arguments_text,
    as_stream,
    endpoint_of,
    result_content,
    run_tool,
    tool_message,
)
from hookproof.errors import ToolCallError, ToolNotFoundError, UsageError
from hookproof.messages import AssistantMessage, Message, TextBlock, ToolMessage, construct
from hookproof.messages import ToolCall as MessageToolCall
from hookproof.requests import Command

__all__ = ["ToolsNodeInput", "check_known_tools", "execute_tool", "tool_layers"]

HOOK_LABEL = "tool_wrapper"  # a handler's wrap_*_tool_call, or a ToolMiddleware, in the trace

WRAP_METHODS = {
    "invokable": "wrap_invokable_tool_call",
    "streamable": "wrap_streamable_tool_call",
    "enhanced_invokable": "wrap_enhanced_invokable_tool_call",
    "enhanced_streamable": "wrap_enhanced_streamable_tool_call",
}


def _calls_of(messages: Sequence[Message]) -> tuple[Any, ...]:
    last = messages[-1] if messages else None
    return last.tool_calls if isinstance(last, AssistantMessage) else ()


def return_directly_index(messages: Sequence[Message], names: Any) -> int | None:
    """The call that ends the run: the last call, in the model's message, to a tool whose
    name is in return_directly (presence counts, not the flag); by position, since ids may
    be missing."""
    if not names:
        return None
    matching = [i for i, call in enumerate(_calls_of(messages)) if call.name in names]
    return matching[-1] if matching else None


def _position(messages: Sequence[Message], model_call: Any) -> int:
    last = messages[-1] if messages else None  # _calls_of inline: every tool call
    calls = last.tool_calls if isinstance(last, AssistantMessage) else ()
    for index, candidate in enumerate(calls):
        if candidate is model_call:
            return index
    return next((i for i, candidate in enumerate(calls) if candidate == model_call), -1)


@dataclass(slots=True)
class ToolsNodeInput:
    """What the outermost tool layer (the ToolsNode) receives from the engine: one call of
    the model's message, and the state before the turn."""

    run: EinoRun
    tool_call: MessageToolCall
    state: FrozenDict


def _tools_node(request: ToolsNodeInput, inner: Inner) -> ToolMessage | Command:
    run = request.run
    model_call = request.tool_call
    call_id = model_call.id or ""
    arguments = arguments_text(model_call.args)
    tool = run.tools.get(model_call.name)
    if tool is None:
        return _unknown_tool(run, model_call.name, arguments, call_id)
    kind = endpoint_of(run.tool_kinds[model_call.name], run.streaming)
    if run.agent.tool_arguments_handler is not None:
        arguments = _handled_arguments(run, model_call.name, arguments)
    messages = request.state.get("messages", ())
    index = _position(messages, model_call)
    call = ToolCall(
        run, run.ctx, model_call.name, call_id, arguments, tool, kind, run.streaming, index
    )
    try:
        result = inner(call)
    except InterruptRaised:
        raise
    except Exception as error:
        raise _tool_error(call, error) from error
    message = _node_message(call, result)
    names = run.agent_ctx.return_directly  # none: no call ends the run
    if names and index == return_directly_index(messages, names) and call_id:
        return Command(update={"messages": [message]}, goto="end")  # Eino needs its id
    return message


def _node_message(call: ToolCall, result: Any) -> ToolMessage:
    """The ToolsNode's own message for a result: the event's, when the event sender saw this
    very result (same id, same content), else built anew with the event's id."""
    run: EinoRun = call.run
    seen, message = run.sent_tool_messages.pop(call.index, (None, None))
    msg_id = run.tool_msg_ids.pop(call.index, None)
    if message is not None and seen is result and message.tool_call_id == call.call_id:
        return message
    content = result_content(call.kind, result, f"tool {call.name!r}")
    return tool_message(call, content, msg_id or run.next_message_id())


def _handled_arguments(run: EinoRun, name: str, arguments: str) -> str:
    """Eino's ToolArgumentsHandler: rewrites a call's JSON arguments before every layer."""
    handler = run.agent.tool_arguments_handler
    if handler is None:
        return arguments
    handled = handler(run.ctx, name, arguments)
    if not isinstance(handled, str):
        raise UsageError(
            f"hookproof: tool_arguments_handler returned {type(handled).__name__} for tool "
            f"{name!r}; it returns the arguments as JSON text (str)."
        )
    return handled


def _tool_error(call: ToolCall, error: Exception) -> ToolCallError:
    if call.streaming:  # in stream mode the ToolsNode streams every tool
        text = f"failed to stream tool call {call.call_id}: {error}"
    else:
        text = f"failed to invoke tool[name:{call.name} id:{call.call_id}]: {error}"
    return ToolCallError(text, name=call.name, call_id=call.call_id)


def check_known_tools(run: EinoRun, names: Sequence[str]) -> None:
    """Eino's ToolsNode finds every call's tool before it runs any: without an
    UnknownToolsHandler, one unknown tool fails the whole step, and no call runs."""
    if run.agent.unknown_tools_handler is not None:
        return
    for name in names:
        if name not in run.tools:
            raise ToolNotFoundError(
                f"tool {name} not found in toolsNode indexes. The model called a tool this run "
                f"does not have (tools: {sorted(run.tools)}); register it, or set "
                "unknown_tools_handler= to answer such calls."
            )


def _unknown_tool(run: EinoRun, name: str, arguments: str, call_id: str) -> ToolMessage:
    """Eino's UnknownToolsHandler answers a call to an unknown tool, bypassing every layer."""
    check_known_tools(run, [name])
    handler = run.agent.unknown_tools_handler
    text = handler(run.ctx, name, arguments)
    if not isinstance(text, str):
        raise UsageError(
            f"hookproof: unknown_tools_handler returned {type(text).__name__}; it returns the "
            "tool result as str."
        )
    return construct(ToolMessage, content=(TextBlock(text=text),), tool_call_id=call_id, name=name)


def _event_sender(call: ToolCall, inner: Inner) -> Any:
    """Sends the tool-result event; none on error; the return-directly call's is held back
    and sent after the others, when the run finishes."""
    result = inner(call)
    run: EinoRun = call.run
    streamable = call.kind in STREAMABLE
    chunks = as_stream(call.kind, result) if streamable else ()
    content = result_content(call.kind, chunks if streamable else result, call.name)
    msg_id = run.tool_msg_ids[call.index] = run.next_message_id()  # for the ToolsNode's own
    message = tool_message(call, content, msg_id)
    if not streamable:
        run.sent_tool_messages[call.index] = (result, message)
    # The event is sent where the tool's own endpoint runs: an invokable tool's result is one
    # message even in a streaming run (Eino makes it a stream outside the wrappers).
    streamed = call.streaming and streamable
    event = AgentEvent.trusted(
        agent_name=run.exec.agent_name,
        message=message,
        tool_name=call.name,
        is_streaming=streamed,
        chunks=_chunk_messages(call, chunks) if streamed else (),
    )
    handle = run.exec.handle
    assert handle is not None
    if (call.call_id == "") if not run.agent_ctx.return_directly else _held(call, handle):
        # Eino holds by call id: a call sharing the return-directly call's id is held too,
        # and the later one replaces its event, which is never sent
        handle.update({HELD_KEY: event}, source="return_directly")
    else:
        run.exec.emit(event, owner="eino:event_sender", kind="tool_result")
    return replay(chunks) if streamable else result


def _held(call: ToolCall, handle: RunHandle) -> bool:
    """Whether the call's event waits for the end of the tool step: Eino holds the event of
    each call whose id is the return-directly call's ("" when there is none), so calls
    sharing it, and calls without an id, are held too; the last one held is sent."""
    names = call.run.agent_ctx.return_directly
    if not names:
        return call.call_id == ""
    messages = handle.state.get("messages", ())
    index = return_directly_index(messages, names)
    held_id = (_calls_of(messages)[index].id or "") if index is not None else ""
    return call.call_id == held_id


def _chunk_messages(call: ToolCall, chunks: tuple[Any, ...]) -> tuple[Message, ...]:
    kind = call.kind.replace("streamable", "invokable")
    return tuple(
        tool_message(call, result_content(kind, chunk, call.name), "")  # type: ignore[arg-type]
        for chunk in chunks
    )


def _tool_middleware_layer(
    middleware: ToolMiddleware, owner: str, endpoints: frozenset[str] | None
) -> Layer:
    def wrap(call: ToolCall, inner: Inner) -> Any:
        def endpoint(ctx: RunContext, tool_input: ToolInput) -> ToolOutput:
            if not isinstance(tool_input, ToolInput):
                raise UsageError(
                    f"hookproof: {owner} called its next endpoint with "
                    f"{type(tool_input).__name__}; pass the ToolInput it received."
                )
            return ToolOutput.trusted(result=inner(call.with_input(ctx, tool_input.arguments)))

        wrapped = getattr(middleware, call.kind)(endpoint)
        tool_input = ToolInput.trusted(
            name=call.name, arguments=call.arguments, call_id=call.call_id
        )
        output = wrapped(call.ctx, tool_input)
        if not isinstance(output, ToolOutput):
            raise UsageError(
                f"hookproof: {owner} ({call.kind}) returned {type(output).__name__}; a tool "
                "middleware endpoint returns ToolOutput(result=...)."
            )
        return output.result

    wraps = {kind: getattr(middleware, kind) is not None for kind in WRAP_METHODS}
    return sync_layer(owner, HOOK_LABEL, wrap, when=_when(wraps, endpoints))


def _cancel_monitor(call: ToolCall, inner: Inner) -> Any:
    """Eino watches for cancellation of streaming tool calls here; hookproof has no
    cancellation, so this layer only holds its place in the order."""
    return inner(call)


def _handler_tool_layer(handler: Any, owner: str, endpoints: frozenset[str] | None) -> Layer:
    def wrap(call: ToolCall, inner: Inner) -> Any:
        enhanced = call.kind in ENHANCED

        def endpoint(ctx: RunContext, argument: Any) -> Any:
            text = argument.text if enhanced and isinstance(argument, ToolArgument) else argument
            return inner(call.with_input(ctx, text))

        method = getattr(handler, WRAP_METHODS[call.kind])
        tool_ctx = ToolContext.trusted(name=call.name, call_id=call.call_id)
        wrapped = method(call.ctx, endpoint, tool_ctx)
        if wrapped is endpoint:  # not wrapped: what endpoint would do with the call's input
            return inner(call)
        if not callable(wrapped):
            raise UsageError(
                f"hookproof: {owner}.{WRAP_METHODS[call.kind]} returned "
                f"{type(wrapped).__name__}; it returns an endpoint (the one it received, or a "
                "function (ctx, arguments) -> result that calls it)."
            )
        return wrapped(
            call.ctx, ToolArgument.trusted(text=call.arguments) if enhanced else call.arguments
        )

    wraps = {kind: overrides(handler, method) for kind, method in WRAP_METHODS.items()}
    return sync_layer(owner, HOOK_LABEL, wrap, when=_when(wraps, endpoints))


def _callbacks(call: ToolCall, inner: Inner) -> Any:
    info = RunInfo(name=call.name, type=type(call.tool).__name__, component="Tool")
    return around(
        call.run.agent.callbacks,
        call.ctx,
        info,
        call.arguments,
        lambda ctx: inner(call.with_input(ctx, call.arguments)),
    )


def execute_tool(call: ToolCall) -> Any:
    """The innermost step: the tool's own run through the selected endpoint."""
    result = run_tool(call)
    return replay(as_stream(call.kind, result)) if call.kind in STREAMABLE else result


def _endpoints(handlers: Sequence[tuple[str, Any]], agent: AgentSettings) -> frozenset[str] | None:
    """The endpoints this agent's calls can go to, in either mode (None: unknown, since
    before_agent may hand a run other tools)."""
    if any(overrides(handler, "before_agent") for _, handler in handlers):
        return None
    kinds = agent.tool_index.kinds.values()
    return frozenset(endpoint_of(found, mode) for found in kinds for mode in (False, True))


def _when(wraps: dict[str, bool], endpoints: frozenset[str] | None) -> Any:
    """Which calls a wrapper layer takes: every call (None) when it wraps each endpoint
    the agent's calls can go to."""
    reached = WRAP_METHODS.keys() if endpoints is None else endpoints
    if all(wraps[kind] for kind in reached):
        return None
    return lambda call: wraps[call.kind]


def tool_layers(
    handlers: Sequence[tuple[str, Any]],
    tool_middlewares: Sequence[tuple[str, ToolMiddleware]],
    legacy: Sequence[tuple[str, ToolMiddleware]],
    agent: AgentSettings,
) -> tuple[Layer, ...]:
    layers = [sync_layer("eino:tools_node", "tools_node", _tools_node)]
    if not any(isinstance(h, EventSenderToolWrapper) for _, h in handlers):
        layers.append(sync_layer("eino:event_sender", "event_sender", _event_sender))
    endpoints = _endpoints(handlers, agent)
    layers += [
        _tool_middleware_layer(mw, owner, endpoints) for owner, mw in (*tool_middlewares, *legacy)
    ]
    if endpoints is None or endpoints & STREAMABLE:  # else it would skip every call
        layers.append(
            sync_layer(
                "eino:cancel_monitor",
                "cancel_monitor",
                _cancel_monitor,
                when=lambda call: call.kind in STREAMABLE,
            )
        )
    for owner, handler in handlers:
        if isinstance(handler, EventSenderToolWrapper):
            layers.append(sync_layer(owner, "event_sender", _event_sender))
        elif any(overrides(handler, method) for method in WRAP_METHODS.values()):
            layers.append(_handler_tool_layer(handler, owner, endpoints))
    layers += callbacks_layers(agent.callbacks, _callbacks, lambda call: call.tool)
    return tuple(layers)
