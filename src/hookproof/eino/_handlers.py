"""Handlers (ChatModelAgentMiddleware), the legacy AgentMiddleware struct, ToolMiddleware."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from hookproof.eino._context import RunContext
from hookproof.eino._records import (
    ChatModelAgentContext,
    ChatModelAgentState,
    ModelContext,
    ToolArgument,
    ToolContext,
    ToolInput,
    ToolOutput,
    ToolResult,
)
from hookproof.errors import UsageError, did_you_mean
from hookproof.messages import AssistantMessage, Message

__all__ = [
    "AgentMiddleware",
    "BaseChatModelAgentMiddleware",
    "ChatModelAgentMiddleware",
    "EinoChatModel",
    "EnhancedInvokableToolCallEndpoint",
    "EnhancedStreamableToolCallEndpoint",
    "EventSenderModelWrapper",
    "EventSenderToolWrapper",
    "InvokableToolCallEndpoint",
    "ModelWrapper",
    "StreamableToolCallEndpoint",
    "ToolMiddleware",
    "new_event_sender_model_wrapper",
    "new_event_sender_tool_wrapper",
]

InvokableToolCallEndpoint = Callable[[RunContext, str], str]
StreamableToolCallEndpoint = Callable[[RunContext, str], Iterator[str]]
EnhancedInvokableToolCallEndpoint = Callable[[RunContext, ToolArgument], ToolResult]
EnhancedStreamableToolCallEndpoint = Callable[[RunContext, ToolArgument], Iterator[ToolResult]]
ToolEndpoint = Callable[[RunContext, ToolInput], ToolOutput]


@runtime_checkable
class EinoChatModel(Protocol):
    """What wrap_model receives and returns: ``generate`` and, in streaming runs, ``stream``.

    ``options`` carry ``tools``, ``deferred_tools`` and ``tool_search_tool`` (and whatever a
    retry decision added). A wrapper passes on the ones it changes; an option it leaves out
    keeps its value (Eino drops omitted options; hookproof does not let tools vanish).
    """

    def generate(self, ctx: RunContext, messages: Sequence[Message], **options: Any) -> Any: ...

    def stream(
        self, ctx: RunContext, messages: Sequence[Message], **options: Any
    ) -> Iterator[AssistantMessage]: ...


class ModelWrapper:
    """A convenient base for what wrap_model returns: passes both calls to ``inner``;
    override ``generate`` and/or ``stream``.

    As in Eino, ``inner`` has only the endpoint of the run's mode (``generate``, or
    ``stream`` when streaming; the other fails with Eino's "... endpoint not set"), and it
    gets exactly the options passed: pass ``**options`` on, or the model is shown no tool."""

    def __init__(self, inner: EinoChatModel) -> None:
        self.inner = inner

    def generate(self, ctx: RunContext, messages: Sequence[Message], **options: Any) -> Any:
        return self.inner.generate(ctx, messages, **options)

    def stream(
        self, ctx: RunContext, messages: Sequence[Message], **options: Any
    ) -> Iterator[AssistantMessage]:
        return self.inner.stream(ctx, messages, **options)


@runtime_checkable
class ChatModelAgentMiddleware(Protocol):
    """A handler: every method below, each returning the (possibly new) ctx and value.

    Subclass BaseChatModelAgentMiddleware to get no-op defaults and override what you need.
    """

    def before_agent(
        self, ctx: RunContext, agent_ctx: ChatModelAgentContext
    ) -> tuple[RunContext, ChatModelAgentContext]: ...

    def after_agent(self, ctx: RunContext, state: ChatModelAgentState) -> RunContext: ...

    def before_model_rewrite_state(
        self, ctx: RunContext, state: ChatModelAgentState, model_ctx: ModelContext
    ) -> tuple[RunContext, ChatModelAgentState]: ...

    def after_model_rewrite_state(
        self, ctx: RunContext, state: ChatModelAgentState, model_ctx: ModelContext
    ) -> tuple[RunContext, ChatModelAgentState]: ...

    def wrap_model(self, ctx: RunContext, model: EinoChatModel, model_ctx: ModelContext) -> Any: ...

    def wrap_invokable_tool_call(
        self, ctx: RunContext, endpoint: InvokableToolCallEndpoint, tool_ctx: ToolContext
    ) -> InvokableToolCallEndpoint: ...

    def wrap_streamable_tool_call(
        self, ctx: RunContext, endpoint: StreamableToolCallEndpoint, tool_ctx: ToolContext
    ) -> StreamableToolCallEndpoint: ...

    def wrap_enhanced_invokable_tool_call(
        self, ctx: RunContext, endpoint: EnhancedInvokableToolCallEndpoint, tool_ctx: ToolContext
    ) -> EnhancedInvokableToolCallEndpoint: ...

    def wrap_enhanced_streamable_tool_call(
        self,
        ctx: RunContext,
        endpoint: EnhancedStreamableToolCallEndpoint,
        tool_ctx: ToolContext,
    ) -> EnhancedStreamableToolCallEndpoint: ...


class BaseChatModelAgentMiddleware:
    """No-op defaults for every handler method: each returns its inputs unchanged."""

    def before_agent(
        self, ctx: RunContext, agent_ctx: ChatModelAgentContext
    ) -> tuple[RunContext, ChatModelAgentContext]:
        return ctx, agent_ctx

    def after_agent(self, ctx: RunContext, state: ChatModelAgentState) -> RunContext:
        return ctx

    def before_model_rewrite_state(
        self, ctx: RunContext, state: ChatModelAgentState, model_ctx: ModelContext
    ) -> tuple[RunContext, ChatModelAgentState]:
        return ctx, state

    def after_model_rewrite_state(
        self, ctx: RunContext, state: ChatModelAgentState, model_ctx: ModelContext
    ) -> tuple[RunContext, ChatModelAgentState]:
        return ctx, state

    def wrap_model(self, ctx: RunContext, model: EinoChatModel, model_ctx: ModelContext) -> Any:
        return model

    def wrap_invokable_tool_call(
        self, ctx: RunContext, endpoint: InvokableToolCallEndpoint, tool_ctx: ToolContext
    ) -> InvokableToolCallEndpoint:
        return endpoint

    def wrap_streamable_tool_call(
        self, ctx: RunContext, endpoint: StreamableToolCallEndpoint, tool_ctx: ToolContext
    ) -> StreamableToolCallEndpoint:
        return endpoint

    def wrap_enhanced_invokable_tool_call(
        self, ctx: RunContext, endpoint: EnhancedInvokableToolCallEndpoint, tool_ctx: ToolContext
    ) -> EnhancedInvokableToolCallEndpoint:
        return endpoint

    def wrap_enhanced_streamable_tool_call(
        self,
        ctx: RunContext,
        endpoint: EnhancedStreamableToolCallEndpoint,
        tool_ctx: ToolContext,
    ) -> EnhancedStreamableToolCallEndpoint:
        return endpoint


HANDLER_METHODS = (
    "before_agent",
    "after_agent",
    "before_model_rewrite_state",
    "after_model_rewrite_state",
    "wrap_model",
    "wrap_invokable_tool_call",
    "wrap_streamable_tool_call",
    "wrap_enhanced_invokable_tool_call",
    "wrap_enhanced_streamable_tool_call",
)
_HOOK_PREFIXES = ("before_", "after_", "wrap_")


class EventSenderModelWrapper(BaseChatModelAgentMiddleware):
    """Registered among handlers, the model-output event is sent at this handler's position
    instead of outside every wrap_model (so outer wrappers' changes are not in the event)."""


class EventSenderToolWrapper(BaseChatModelAgentMiddleware):
    """Registered among handlers, the tool-result event is sent at this handler's position
    instead of outermost."""


def new_event_sender_model_wrapper() -> EventSenderModelWrapper:
    return EventSenderModelWrapper()


def new_event_sender_tool_wrapper() -> EventSenderToolWrapper:
    return EventSenderToolWrapper()


@dataclass(frozen=True)
class ToolMiddleware:
    """A tool-call middleware (Eino's compose.ToolMiddleware): for each endpoint kind, an
    optional ``next -> endpoint`` function; ``endpoint(ctx, ToolInput) -> ToolOutput``. A kind
    left None is not wrapped for tools called through that kind."""

    invokable: Callable[[ToolEndpoint], ToolEndpoint] | None = None
    streamable: Callable[[ToolEndpoint], ToolEndpoint] | None = None
    enhanced_invokable: Callable[[ToolEndpoint], ToolEndpoint] | None = None
    enhanced_streamable: Callable[[ToolEndpoint], ToolEndpoint] | None = None


StateHook = Callable[[RunContext, ChatModelAgentState], ChatModelAgentState | None]


@dataclass(frozen=True)
class AgentMiddleware:
    """The legacy (deprecated in Eino) middleware struct.

    ``additional_instruction`` and ``additional_tools`` apply at build time, before
    before_agent (which sees them). ``before_chat_model`` runs before the handlers'
    before_model_rewrite_state, ``after_chat_model`` after their after_model_rewrite_state;
    each returns a new state or None to keep it. ``wrap_tool_call`` sits outside the
    handlers' tool wrappers.
    """

    additional_instruction: str = ""
    additional_tools: Sequence[Any] = ()
    before_chat_model: StateHook | None = None
    after_chat_model: StateHook | None = None
    wrap_tool_call: ToolMiddleware | None = None


def overrides(handler: object, method: str) -> bool:
    """True when the handler's own code defines ``method`` (not the no-op default), on its
    class or as an attribute of the instance."""
    found = getattr(handler, method, None)
    function = getattr(found, "__func__", found)
    return found is not None and function is not getattr(BaseChatModelAgentMiddleware, method)


def check_handler(handler: object, index: int) -> None:
    """Refuse a handler that misses methods or misspells one, before anything runs."""
    cls = type(handler).__name__
    if isinstance(handler, type):
        raise UsageError(
            f"hookproof: handlers[{index}] is the class {handler.__name__}, not an instance; "
            f"its hooks would never run. Pass handlers=[{handler.__name__}()]."
        )
    missing = [name for name in HANDLER_METHODS if not callable(getattr(handler, name, None))]
    if missing:
        raise UsageError(
            f"hookproof: handlers[{index}] ({cls}) lacks {', '.join(missing)}. A handler has "
            "every ChatModelAgentMiddleware method; subclass "
            "hookproof.eino.BaseChatModelAgentMiddleware for no-op defaults."
        )
    for name in dir(type(handler)):
        if _misnamed(name):
            hint = (
                f" That is the LangChain-shaped dialect's name; here it is {_OTHER_DIALECT[name]}."
                if name in _OTHER_DIALECT
                else did_you_mean(name, HANDLER_METHODS)
            )
            raise UsageError(
                f"hookproof: handlers[{index}] ({cls}) defines {name!r}, which is not a "
                f"handler method, so it would never run.{hint} "
                f"Handler methods: {', '.join(HANDLER_METHODS)}."
            )


_OTHER_DIALECT = {  # LangChain-dialect names, and what they are called here
    "before_model": "before_model_rewrite_state",
    "after_model": "after_model_rewrite_state",
    "wrap_model_call": "wrap_model",
    "wrap_tool_call": "wrap_invokable_tool_call (or the streamable/enhanced variants)",
}


def _misnamed(name: str) -> bool:
    """A method that looks meant as a hook: a LangChain-dialect name, or a near miss."""
    import difflib  # only while checking handlers, not at import

    if name in HANDLER_METHODS or not name.startswith(_HOOK_PREFIXES):
        return False
    near = difflib.get_close_matches(name, list(HANDLER_METHODS), n=1, cutoff=0.8)
    return name in _OTHER_DIALECT or bool(near)


def check_legacy(item: object, index: int) -> AgentMiddleware:
    if not isinstance(item, AgentMiddleware):
        raise UsageError(
            f"hookproof: middlewares[{index}] is a {type(item).__name__}; middlewares= takes "
            "hookproof.eino.AgentMiddleware structs. Handlers (ChatModelAgentMiddleware) go "
            "in handlers=."
        )
    if item.wrap_tool_call is not None and not isinstance(item.wrap_tool_call, ToolMiddleware):
        raise UsageError(
            f"hookproof: middlewares[{index}].wrap_tool_call is a "
            f"{type(item.wrap_tool_call).__name__}; it takes a ToolMiddleware, e.g. "
            "AgentMiddleware(wrap_tool_call=ToolMiddleware(invokable=lambda next: endpoint)), "
            "where endpoint(ctx, tool_input) returns next(ctx, tool_input)."
        )
    if isinstance(item.additional_tools, str) or not isinstance(
        item.additional_tools, list | tuple
    ):
        raise UsageError(
            f"hookproof: middlewares[{index}].additional_tools is a "
            f"{type(item.additional_tools).__name__}; it takes a list of tools, e.g. "
            "additional_tools=[my_tool]."
        )
    return item


def check_tool_middleware(item: object, where: str) -> ToolMiddleware:
    if not isinstance(item, ToolMiddleware):
        raise UsageError(
            f"hookproof: {where} is a {type(item).__name__}; it must be a "
            "hookproof.eino.ToolMiddleware(invokable=..., streamable=..., ...)."
        )
    return item
