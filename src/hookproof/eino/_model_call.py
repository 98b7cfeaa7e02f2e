"""A model call in the Eino dialect: the ModelCall that passes between the model layers,
and its boundary with the engine (the request the model receives, the answer handed back)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hookproof._engine import Layer
from hookproof._support.frozen import FrozenDict, FrozenList
from hookproof.eino._context import RunContext
from hookproof.eino._run import NO_SETTINGS, EinoRun
from hookproof.eino._streams import collect, concat_messages
from hookproof.errors import UsageError
from hookproof.guard import check_model
from hookproof.messages import AssistantMessage, Message, SystemMessage
from hookproof.requests import ModelRequest, ModelResponse, model_name

__all__ = [
    "ChatModelInput",
    "EinoStyleModel",
    "Inner",
    "ModelCall",
    "callbacks_enabled",
    "callbacks_layers",
    "message_of",
    "model_answer",
    "model_request",
    "sync_layer",
]

Inner = Callable[[Any], Any]


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
    run, options, model = call.run, call.options, call.model
    # EinoRun.request_tools, .invokable and .request_settings: their usual answers inline
    given = options.get("tools") or ()
    tools: FrozenList[Any] = (
        run.frozen_tool_infos if given is run.tool_infos else run.request_tools(given)
    )
    if model is not run.invokable_model and not run.invokable(model):
        model = EinoStyleModel(model, call)
    settings = (
        NO_SETTINGS if options is run.options_without_settings else run.request_settings(options)
    )
    return ModelRequest(
        model=model,
        messages=FrozenList(messages),
        system_message=system,
        tools=tools,
        state=call.state,
        model_settings=settings,
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
        return message_of(
            inner.generate(call.ctx, call.messages, **call.options), False, "generate()"
        )


def message_of(result: Any, streaming: bool, what: str) -> AssistantMessage:
    if streaming:
        return concat_messages(collect(result, what))
    if not isinstance(result, AssistantMessage):
        raise UsageError(
            f"hookproof: {what} returned {type(result).__name__}; generate() returns an "
            "AssistantMessage."
        )
    return result


def callbacks_enabled(component: Any) -> bool:
    check = getattr(component, "is_callbacks_enabled", None)
    return bool(check()) if callable(check) else False


def callbacks_layers(
    callbacks: Sequence[Any],
    run_callbacks: Callable[[Any, Inner], Any],
    component: Callable[[Any], Any],
) -> list[Layer]:
    """The callbacks layer, when the agent has callbacks: ``run_callbacks`` around each call
    whose ``component(call)`` (its model or tool) does not run them itself."""
    if not callbacks:
        return []
    return [
        sync_layer(
            "eino:callbacks",
            "callbacks",
            run_callbacks,
            when=lambda call: not callbacks_enabled(component(call)),
        )
    ]
