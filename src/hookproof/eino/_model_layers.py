"""The model-call layers of spec section 3, as engine Layers (outermost first):

chat model (state in, result out) > failover > retry > event sender > wrap_model handlers
> message id > callbacks > the model. A model call passes between them as a ModelCall.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hookproof._engine import Layer
from hookproof._engine.checkpoint import InterruptRaised
from hookproof._frozen import FrozenDict, FrozenList, freeze, freeze_list
from hookproof._guard import check_model
from hookproof.eino._context import RunContext
from hookproof.eino._handlers import overrides
from hookproof.eino._records import AgentEvent
from hookproof.eino._retry import (
    FailoverContext,
    RetryContext,
    RetryDecision,
    RetryExhaustedError,
    default_backoff,
)
from hookproof.eino._run import EinoRun, ReplaceMessages
from hookproof.eino._streams import collect, concat_messages, partial_chunks, replay
from hookproof.errors import EinoError, UsageError
from hookproof.messages import AssistantMessage, Message, SystemMessage, construct
from hookproof.vocabulary import ModelRequest, ModelResponse, model_name

__all__ = ["ChatModelInput", "ModelCall", "model_answer", "model_layers", "model_request"]

Inner = Callable[[Any], Any]
_NO_SETTINGS = FrozenDict()


@dataclass(slots=True)
class ModelCall:
    """One model attempt on its way through the layers. Never changed in place (layers
    further out still hold it): a layer passes on a copy (``with_input``, ``but``)."""

    run: EinoRun
    ctx: RunContext
    messages: tuple[Message, ...]
    options: FrozenDict
    model: Any
    streaming: bool
    state: FrozenDict

    def with_input(
        self, ctx: Any, messages: Any, options: dict[str, Any], streaming: bool
    ) -> ModelCall:
        if (
            ctx is self.ctx
            and messages is self.messages
            and streaming == self.streaming
            and options == self.options
        ):
            return self  # passed on as received (the usual wrapper)
        if not isinstance(ctx, RunContext):
            raise UsageError(
                f"hookproof: a wrapped model was called with {type(ctx).__name__} as ctx; pass "
                "the ctx generate()/stream() received."
            )
        return ModelCall(
            self.run,
            self.run.bind(ctx),
            tuple(messages),
            FrozenDict(options),
            self.model,
            streaming,
            self.state,
        )

    def but(
        self,
        *,
        ctx: RunContext | None = None,
        model: Any = None,
        messages: tuple[Message, ...] | None = None,
        options: FrozenDict | None = None,
    ) -> ModelCall:
        """A copy with the given parts replaced."""
        return ModelCall(
            self.run,
            self.ctx if ctx is None else ctx,
            self.messages if messages is None else messages,
            self.options if options is None else options,
            self.model if model is None else model,
            self.streaming,
            self.state,
        )


@dataclass(slots=True)
class ChatModelInput:
    """What the outermost model layer (the ChatModel step) receives from the engine."""

    run: EinoRun
    state: FrozenDict
    model: Any


def sync_layer(owner: str, hook: str, func: Callable[[Any, Inner], Any], **extra: Any) -> Layer:
    """A dialect layer (Eino's are synchronous): ModelCall/ToolCall in, Eino results out."""
    return Layer(owner, hook, func, None, **extra)


# -- the boundary with the engine ---------------------------------------------------------


def model_request(call: ModelCall) -> ModelRequest:
    """The ModelRequest the innermost model receives for a ModelCall (the FinalRequest)."""
    messages = call.messages
    system = None
    if messages and isinstance(messages[0], SystemMessage):
        system, messages = messages[0], messages[1:]
    options = call.options
    tools = call.run.request_tools(options.get("tools") or ())
    settings = {
        key: _plain(value) for key, value in options.items() if value is not None and key != "tools"
    }
    model = call.model
    if not callable(getattr(model, "invoke", None)):
        model = EinoStyleModel(model, call)
    return ModelRequest(
        model=model,
        messages=FrozenList(messages),
        system_message=system,
        tools=tools,
        state=call.state,
        model_settings=FrozenDict(settings) if settings else _NO_SETTINGS,
    )


def model_answer(call: ModelCall, response: ModelResponse) -> Any:
    """The model's answer as the layers above expect it: a message, or chunks when streaming."""
    message = response.message
    assert message is not None
    chunks, call.run.model_chunks = call.run.model_chunks, ()
    if not call.streaming:
        return message
    return chunks if chunks else (message,)  # a hookproof model answers in one chunk


class EinoStyleModel:
    """Calls a model written Eino's way, ``generate(ctx, messages, **options)`` (or
    ``stream``), as the innermost model; the FinalRequest is recorded as for any model."""

    hookproof_offline = True  # the wrapped model itself is checked on every call

    def __init__(self, inner: Any, call: ModelCall) -> None:
        self.inner, self.call = inner, call
        self.name = model_name(inner)

    def invoke(self, request: Any) -> AssistantMessage:
        check_model(self.inner)
        call, inner = self.call, self.inner
        stream = getattr(inner, "stream", None)
        if callable(stream) and (call.streaming or not callable(getattr(inner, "generate", None))):
            chunks = collect(stream(call.ctx, call.messages, **call.options), "model.stream()")
            call.run.model_chunks = chunks  # the stream's own chunks, for the layers above
            return concat_messages(chunks)
        return _message(
            inner.generate(call.ctx, call.messages, **call.options), False, "generate()"
        )


def _plain(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


# -- the layers ---------------------------------------------------------------------------


def _chat_model(step: ChatModelInput, inner: Inner) -> AssistantMessage:
    """The outermost step: the model gets state.messages and state.tool_infos, last."""
    run, state = step.run, step.state
    options: dict[str, Any] = {"tools": run.shown_tools(state.get("tool_infos"))}
    if state.get("deferred_tool_infos") is not None:
        options["deferred_tools"] = tuple(state["deferred_tool_infos"])
    if run.agent_ctx.tool_search_tool is not None:
        options["tool_search_tool"] = run.agent_ctx.tool_search_tool
    run.persisted_input = None
    call = ModelCall(
        run,
        run.model_ctx,
        tuple(state.get("messages", ())),
        FrozenDict(options),
        step.model,
        run.streaming,
        state,
    )
    return _message(inner(call), call.streaming, "the model chain")


def _message(result: Any, streaming: bool, what: str) -> AssistantMessage:
    if streaming:
        return concat_messages(collect(result, what))
    if not isinstance(result, AssistantMessage):
        raise UsageError(
            f"hookproof: {what} returned {type(result).__name__}; generate() returns an "
            "AssistantMessage."
        )
    return result


def _attempt(inner: Inner, call: ModelCall) -> tuple[Any, BaseException | None]:
    try:
        return inner(call), None
    except InterruptRaised:
        raise
    except Exception as error:  # noqa: BLE001 - the retry/failover policy decides
        return None, error


def _failover(call: ModelCall, inner: Inner) -> Any:
    """The last model that succeeded in this run first, then get_failover_model's choices;
    an output should_failover rejects sends no event."""
    config = call.run.agent.model_failover_config
    assert config is not None
    model = call.run.last_success_model or call.model
    messages = call.messages
    result, error, output = None, None, None
    for attempt in range(config.max_retries + 1):
        if attempt:
            model, messages = _failover_model(config, call, attempt, messages, output, error)
            _record(call.run, "failover", {"attempt": attempt, "model": model_name(model)})
        result, error = _held_attempt(inner, call.but(model=model, messages=messages))
        if error is None:  # a success returns at once; should_failover judges failures
            call.run.last_success_model = model
            return _release(call, result)
        messages = call.run.persisted_input or messages  # a retry may have repaired it
        output = _partial_output(error)
        if not config.should_failover(call.ctx, output, error):
            raise error
    assert error is not None
    raise error


def _partial_output(error: BaseException) -> AssistantMessage | None:
    """The message a failed stream had produced so far (None for a plain error)."""
    chunks = [c for c in partial_chunks(error) if isinstance(c, AssistantMessage)]
    return concat_messages(tuple(chunks)) if chunks else None


def _held_attempt(inner: Inner, call: ModelCall) -> tuple[Any, BaseException | None]:
    """One attempt whose model-output event is held until the attempt is accepted."""
    events = call.run.exec
    events.hold_depth += 1
    events.held_event = None
    try:
        result, error = _attempt(inner, call)
    finally:
        events.hold_depth -= 1
    return (None, error) if error is not None else (_replayable(result, call), None)


def _release(call: ModelCall, result: Any) -> Any:
    """Send the accepted attempt's held event, unless an outer decider still holds it."""
    events = call.run.exec
    if events.hold_depth == 0 and events.held_event is not None:
        events.emit(events.held_event, owner="eino:event_sender")
        events.held_event = None
    return replay(result) if call.streaming else result


def _replayable(result: Any, call: ModelCall) -> Any:
    return tuple(collect(result, "the model stream")) if call.streaming else result


def _failover_model(
    config: Any,
    call: ModelCall,
    attempt: int,
    messages: tuple[Message, ...],
    output: AssistantMessage | None,
    error: BaseException | None,
) -> tuple[Any, tuple[Message, ...]]:
    context = FailoverContext(attempt, messages, output, error)
    choice = config.get_failover_model(call.ctx, context)
    model, replaced = choice if isinstance(choice, tuple) else (choice, None)
    if model is None:
        raise EinoError(f"failover GetFailoverModel returned nil model at attempt {attempt}")
    return model, messages if replaced is None else tuple(replaced)


def _record(run: EinoRun, hook: str, data: dict[str, Any]) -> None:
    if run.exec.handle is not None:
        run.exec.handle.record(hook, f"eino:{hook}", data)


def _retry(call: ModelCall, inner: Inner) -> Any:
    config = call.run.agent.model_retry_config
    assert config is not None
    if config.should_retry is not None:
        return _retry_deciding(call, inner, config)
    retryable = config.is_retryable or (lambda _ctx, _error: True)
    last: BaseException | None = None
    for attempt in range(config.max_retries + 1):
        result, error = _held_attempt(inner, call)
        if error is None:
            return _release(call, result)
        if not retryable(call.ctx, error):
            raise error
        last = error
        _record(call.run, "retry", {"attempt": attempt + 1, "error": type(error).__name__})
        if attempt < config.max_retries:
            _sleep(call, config, attempt + 1, 0.0)
    raise RetryExhaustedError(last, config.max_retries) from last


def _retry_deciding(call: ModelCall, inner: Inner, config: Any) -> Any:
    """should_retry sees every result; a rejected output sends no event."""
    current, last = call, None
    for attempt in range(config.max_retries + 1):
        result, error = _held_attempt(inner, current)
        output = (
            _partial_output(error)
            if error is not None
            else _message(result, call.streaming, "model")
        )
        context = RetryContext(attempt + 1, current.messages, current.options, output, error)
        decision = _decision(config.should_retry(call.ctx, context))
        if not decision.retry:
            if decision.rewrite_error is not None:
                raise decision.rewrite_error
            if error is not None:
                raise error
            return _release(call, result)
        last = error or EinoError(f"model output rejected by ShouldRetry at attempt {attempt + 1}")
        _record(call.run, "retry", {"attempt": attempt + 1, "error": type(last).__name__})
        if attempt >= config.max_retries:
            break
        current = _apply_decision(current, decision)
        _sleep(call, config, attempt + 1, decision.backoff)
    raise RetryExhaustedError(last, config.max_retries) from last


def _decision(value: Any) -> RetryDecision:
    if value is None:
        return RetryDecision()
    if not isinstance(value, RetryDecision):
        raise UsageError(
            f"hookproof: should_retry returned {type(value).__name__}; it returns a "
            "RetryDecision (e.g. RetryDecision(retry=True)) or None to accept the result. "
            "To decide on errors with a bool, use is_retryable= instead."
        )
    return value


def _apply_decision(call: ModelCall, decision: RetryDecision) -> ModelCall:
    if decision.modified_input_messages is not None:
        messages = tuple(decision.modified_input_messages)
        call = call.but(messages=messages)
        if decision.persist_modified_input_messages:
            call.run.persisted_input = messages
            assert call.run.exec.handle is not None
            call.run.exec.handle.update(
                {"messages": ReplaceMessages(messages)}, source="retry.persist_modified_input"
            )
    if decision.additional_options:
        call = call.but(options=FrozenDict({**call.options, **decision.additional_options}))
    return call


def _sleep(call: ModelCall, config: Any, attempt: int, chosen: float) -> None:
    clock = config.clock or call.run.agent.clock
    delay = chosen or (
        config.backoff_func(call.ctx, attempt)
        if config.backoff_func
        else default_backoff(attempt, clock)
    )
    if delay > 0:
        clock.sleep(delay)


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
        run.exec.emit(event, owner="eino:event_sender")


def _event_sender(call: ModelCall, inner: Inner) -> Any:
    """Sends the model-output event (post only); while a retry or failover decides on the
    attempt, the event is held and sent only if the attempt is accepted."""
    result = inner(call)
    if call.streaming:
        chunks = collect(result, "the model stream")
        _send_model_event(call.run, concat_messages(chunks), chunks, True)
        return replay(chunks)
    _send_model_event(call.run, _message(result, False, "the model chain"), (), False)
    return result


class _InnerModel:
    """The model a handler's wrap_model receives: the rest of the chain."""

    __slots__ = ("_call", "_inner")

    def __init__(self, call: ModelCall, inner: Inner) -> None:
        self._call, self._inner = call, inner

    def generate(self, ctx: RunContext, messages: Sequence[Message], **options: Any) -> Any:
        return self._inner(self._call.with_input(ctx, messages, self._merged(options), False))

    def stream(self, ctx: RunContext, messages: Sequence[Message], **options: Any) -> Any:
        call = self._call.with_input(ctx, messages, self._merged(options), True)
        return replay(tuple(self._inner(call)))

    def _merged(self, options: dict[str, Any]) -> dict[str, Any]:
        """Options a wrapper leaves out keep their values (tools are not lost by omission)."""
        return {**self._call.options, **options}

    def __repr__(self) -> str:
        return "<inner model chain>"


def _wrap_model_layer(handler: Any, owner: str) -> Layer:
    def wrap(call: ModelCall, inner: Inner) -> Any:
        model_ctx = call.run.model_context(call.options)
        given = _InnerModel(call, inner)
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
    # the message is valid already: what override() gives (which freezes every sequence,
    # construct()'s defaults included), without validating it again
    return construct(
        AssistantMessage,
        **{
            **message.__dict__,
            "content": freeze_list(message.content),
            "tool_calls": freeze_list(message.tool_calls),
            "additional_kwargs": kwargs,
            "response_metadata": freeze(message.response_metadata),
        },
    )


def callbacks_enabled(component: Any) -> bool:
    check = getattr(component, "is_callbacks_enabled", None)
    return bool(check()) if callable(check) else False


def _callbacks(call: ModelCall, inner: Inner) -> Any:
    from hookproof.eino._callbacks import RunInfo, around

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


def model_layers(handlers: Sequence[tuple[str, Any]], agent: Any) -> tuple[Layer, ...]:
    """The model layers of an agent, outermost first (spec section 3, steps 5 to 10)."""
    from hookproof.eino._handlers import EventSenderModelWrapper

    layers = [sync_layer("eino:chat_model", "chat_model", _chat_model)]
    if agent.model_failover_config is not None:
        layers.append(sync_layer("eino:failover", "failover", _failover))
    if agent.model_retry_config is not None:
        layers.append(sync_layer("eino:retry", "retry", _retry))
    user_sender = any(isinstance(h, EventSenderModelWrapper) for _, h in handlers)
    if not user_sender:
        layers.append(sync_layer("eino:event_sender", "event_sender", _event_sender))
    for owner, handler in handlers:
        if isinstance(handler, EventSenderModelWrapper):
            layers.append(sync_layer(owner, "event_sender", _event_sender))
        elif overrides(handler, "wrap_model"):
            layers.append(_wrap_model_layer(handler, owner))
    layers.append(sync_layer("eino:message_id", "message_id", _message_id))
    if agent.callbacks:
        layers.append(
            sync_layer(
                "eino:callbacks",
                "callbacks",
                _callbacks,
                when=lambda c: not callbacks_enabled(c.model),
            )
        )
    return tuple(layers)
