"""The model-call layers of spec section 3, as engine Layers (outermost first):

chat model (state in, result out) > failover > retry > event sender > wrap_model handlers
> message id > callbacks > the model. A model call passes between them as a ModelCall.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hookproof._engine import Layer
from hookproof._support.frozen import FrozenDict, FrozenList, freeze, freeze_list
from hookproof._support.frozen_model import construct_whole
from hookproof.eino._callbacks import RunInfo, around
from hookproof.eino._context import RunContext
from hookproof.eino._handlers import EventSenderModelWrapper, overrides
from hookproof.eino._model_call import (
    ChatModelInput,
    Inner,
    ModelCall,
    callbacks_layers,
    message_of,
    sync_layer,
)
from hookproof.eino._model_retry import failover, retry
from hookproof.eino._records import AgentEvent
from hookproof.eino._run import EinoRun
from hookproof.eino._settings import AgentSettings
from hookproof.eino._streams import collect, concat_messages, replay
from hookproof.errors import EinoError, UsageError
from hookproof.messages import AssistantMessage, Message
from hookproof.requests import model_name

__all__ = ["model_layers"]


def _chat_model(step: ChatModelInput, inner: Inner) -> AssistantMessage:
    """The outermost step: the model gets state.messages and state.tool_infos, last."""
    run, state = step.run, step.state
    run.persisted_input = None
    call = ModelCall(
        run,
        run.model_ctx,
        tuple(state.get("messages", ())),
        run.model_options(state),
        step.model,
        run.streaming,
        state,
    )
    result = inner(call)
    if type(result) is AssistantMessage and not call.streaming:
        return result  # what message_of gives it back
    return message_of(result, call.streaming, "the model chain")


def _send_model_event(
    run: EinoRun, message: AssistantMessage, chunks: Sequence[Any], streaming: bool
) -> None:
    event = AgentEvent.trusted(
        agent_name=run.exec.agent_name,
        message=message,
        is_streaming=streaming,
        chunks=tuple(chunks),
    )
    if run.exec.hold_depth:
        run.exec.held_event = event
    else:
        run.exec.emit(event, owner="eino:event_sender", kind="model_output")


def _event_sender(call: ModelCall, inner: Inner) -> Any:
    """Sends the model-output event (post only); while a retry or failover decides on the
    attempt, the event is held and sent only if the attempt is accepted."""
    result = inner(call)
    if call.streaming:
        chunks = collect(result, "the model stream")
        _send_model_event(call.run, concat_messages(chunks), chunks, True)
        return replay(chunks)
    if type(result) is not AssistantMessage:  # else it is what message_of gives back
        result = message_of(result, False, "the model chain")
    sender = call.run.exec  # _send_model_event inline: every model call without streaming
    event = AgentEvent.trusted(
        agent_name=sender.agent_name, message=result, is_streaming=False, chunks=()
    )
    if sender.hold_depth:
        sender.held_event = event
        return result
    sender.events.append(event)  # RunExec.emit inline: the event is named and its kind known
    if sender.handle is not None:
        sender.handle.record("agent_event", "eino:event_sender", {"kind": "model_output"})
    return result


class _InnerModel:
    """The model a handler's wrap_model receives: the rest of the chain. As in Eino, it has
    only the endpoint of the run's mode (generate, or stream when streaming), and the call
    goes on with exactly the options the wrapper passes: one that leaves them out leaves
    the model without tools."""

    __slots__ = ("_call", "_inner", "_owner")

    def __init__(self, call: ModelCall, inner: Inner, owner: str) -> None:
        self._call, self._inner, self._owner = call, inner, owner

    def generate(self, ctx: RunContext, messages: Sequence[Message], **options: Any) -> Any:
        if self._call.streaming:
            raise self._no_endpoint("generate", "stream")
        return self._inner(self._call.with_input(ctx, messages, options, False))

    def stream(self, ctx: RunContext, messages: Sequence[Message], **options: Any) -> Any:
        if not self._call.streaming:
            raise self._no_endpoint("stream", "generate")
        call = self._call.with_input(ctx, messages, options, True)
        return replay(tuple(self._inner(call)))

    def _no_endpoint(self, called: str, mode: str) -> EinoError:
        run_kind = "a streaming run" if mode == "stream" else "a run without streaming"
        return EinoError(
            f"{called} endpoint not set: in {run_kind} the model {self._owner}.wrap_model "
            f"receives has only {mode}(), and its wrapper called {called}(). Eino fails the "
            f"same way; call the inner model's {mode}() from the wrapper's {mode}()."
        )

    def __repr__(self) -> str:
        return "<inner model chain>"


_new = object.__new__


def _wrap_model_layer(handler: Any, owner: str) -> Layer:
    def wrap(call: ModelCall, inner: Inner) -> Any:
        options = call.options  # an outer wrapper that dropped the tools: Eino shows the run's
        model_ctx = call.run.model_context(
            options if "tools" in options else {"tools": call.run.tool_infos}
        )
        given = _new(_InnerModel)  # _InnerModel(call, inner, owner) without an __init__ call
        given._call, given._inner, given._owner = call, inner, owner
        wrapped = handler.wrap_model(call.ctx, given, model_ctx)
        if wrapped is given:  # not wrapped: what given.generate/stream would do with the call
            return replay(tuple(inner(call))) if call.streaming else inner(call)
        method = "stream" if call.streaming else "generate"
        if not callable(getattr(wrapped, method, None)):
            raise UsageError(
                f"hookproof: {owner}.wrap_model returned {type(wrapped).__name__}, which has no "
                f"{method}(ctx, messages, **options). Return the model it received, or a "
                "wrapper (hookproof.eino.ModelWrapper) around it."
            )
        return getattr(wrapped, method)(call.ctx, call.messages, **call.options)

    return sync_layer(owner, "wrap_model", wrap)


def _message_id(call: ModelCall, inner: Inner) -> Any:
    result = inner(call)
    if call.streaming:
        chunks = collect(result, "the model stream")
        if chunks and not chunks[0].additional_kwargs.get("_eino_msg_id"):
            chunks = (_with_id(chunks[0], call.run.next_message_id()), *chunks[1:])
        return replay(chunks)
    if isinstance(result, AssistantMessage) and not result.additional_kwargs.get("_eino_msg_id"):
        return _with_id(result, call.run.next_message_id())
    return result


def _with_id(message: AssistantMessage, msg_id: str) -> AssistantMessage:
    kwargs = FrozenDict({**message.additional_kwargs, "_eino_msg_id": msg_id})
    if type(message) is not AssistantMessage:  # a subclass may validate more
        return message.override(additional_kwargs=kwargs)
    # the message is valid already, with every field in its __dict__: what override() gives
    # (which freezes every sequence, construct()'s defaults included), without validating it
    # again or merging in the defaults
    content, calls, metadata = message.content, message.tool_calls, message.response_metadata
    return construct_whole(
        AssistantMessage,
        {
            **message.__dict__,
            "content": content if type(content) is FrozenList else freeze_list(content),
            "tool_calls": calls if type(calls) is FrozenList else freeze_list(calls),
            "additional_kwargs": kwargs,
            "response_metadata": metadata if type(metadata) is FrozenDict else freeze(metadata),
        },
    )


def _callbacks(call: ModelCall, inner: Inner) -> Any:
    info = RunInfo(
        name=model_name(call.model), type=type(call.model).__name__, component="ChatModel"
    )
    return around(
        call.run.agent.callbacks,
        call.ctx,
        info,
        {"messages": call.messages, **call.options},
        lambda ctx: inner(call.but(ctx=call.run.bind(ctx))),
    )


def model_layers(handlers: Sequence[tuple[str, Any]], agent: AgentSettings) -> tuple[Layer, ...]:
    """The model layers of an agent, outermost first (spec section 3, steps 5 to 10)."""
    layers = [sync_layer("eino:chat_model", "chat_model", _chat_model)]
    if agent.model_failover_config is not None:
        layers.append(sync_layer("eino:failover", "failover", failover))
    if agent.model_retry_config is not None:
        layers.append(sync_layer("eino:retry", "retry", retry))
    user_sender = any(isinstance(h, EventSenderModelWrapper) for _, h in handlers)
    if not user_sender:
        layers.append(sync_layer("eino:event_sender", "event_sender", _event_sender))
    for owner, handler in handlers:
        if isinstance(handler, EventSenderModelWrapper):
            layers.append(sync_layer(owner, "event_sender", _event_sender))
        elif overrides(handler, "wrap_model"):
            layers.append(_wrap_model_layer(handler, owner))
    layers.append(sync_layer("eino:message_id", "message_id", _message_id))
    layers += callbacks_layers(agent.callbacks, _callbacks, lambda call: call.model)
    return tuple(layers)
