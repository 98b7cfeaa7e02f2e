"""The Eino dialect's vocabulary: run context, hook inputs, tool payloads, events, errors."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar, dataclass_transform

from hookproof._frozen import FrozenDict
from hookproof.errors import (
    EinoError,
    ExceedMaxIterationsError,
    HandlerError,
    ImmutableError,
    RunContextError,
    ToolCallError,
    ToolNotFoundError,
    UsageError,
    did_you_mean,
)
from hookproof.messages import (
    AssistantMessage,
    ContentBlock,
    Message,
    TextBlock,
    ToolMessage,
    coerce_message,
    construct,
)
from hookproof.tools import ToolSchema

if TYPE_CHECKING:
    from hookproof.eino._runlocal import RunExec

__all__ = [
    "AgentAction",
    "AgentEvent",
    "ChatModelAgentContext",
    "ChatModelAgentState",
    "EinoError",
    "ExceedMaxIterationsError",
    "HandlerError",
    "ModelContext",
    "RunContext",
    "RunContextError",
    "ToolArgument",
    "ToolCallError",
    "ToolContext",
    "ToolInfo",
    "ToolInput",
    "ToolNotFoundError",
    "ToolOutput",
    "ToolResult",
]

R = TypeVar("R")
ToolInfo = ToolSchema  # Eino's schema.ToolInfo: name, description, JSON Schema parameters


# -- the run context ------------------------------------------------------------------------


class RunContext:
    """Eino's ``ctx``: immutable values passed from hook to hook and into the run.

    ``with_value`` returns a new context; the original keeps what it had. A context handed to
    a hook during a run also carries that run, which is what ``set_run_local_value`` and
    ``send_event`` need.
    """

    __slots__ = ("_exec", "_values")
    __hookproof_injected_context__ = True  # a @tool parameter annotated RunContext gets ctx
    _values: FrozenDict
    _exec: RunExec | None

    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        object.__setattr__(self, "_values", FrozenDict(values or {}))
        object.__setattr__(self, "_exec", None)

    def with_value(self, key: str, value: Any) -> RunContext:
        """A new context that also holds ``key`` (replacing an earlier value of it)."""
        if not isinstance(key, str):
            raise UsageError(f"hookproof: RunContext keys are str, got {type(key).__name__}.")
        return self._derive({**self._values, key: value}, self._exec)

    def value(self, key: str, default: Any = None) -> Any:
        return self._values.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._values

    @property
    def values(self) -> FrozenDict:
        return self._values

    def _derive(self, values: Mapping[str, Any], run: RunExec | None) -> RunContext:
        new = object.__new__(RunContext)
        object.__setattr__(
            new, "_values", values if type(values) is FrozenDict else FrozenDict(values)
        )
        object.__setattr__(new, "_exec", run)
        return new

    def _bound(self, run: RunExec | None) -> RunContext:
        return self if self._exec is run else self._derive(self._values, run)

    def __setattr__(self, name: str, value: Any) -> None:
        raise ImmutableError(
            "hookproof: a RunContext cannot be changed; use ctx = ctx.with_value(key, value) "
            "and return the new context from the hook."
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunContext) and self._values == other._values

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._values)))

    def __repr__(self) -> str:
        return f"RunContext({dict(self._values)!r})"


# -- immutable records --------------------------------------------------------------------


class _Record:
    """Base of the dialect's frozen records: ``override`` and a helpful refusal to change."""

    _field_names: ClassVar[tuple[str, ...]] = ()
    _tuple_names: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, Any]] = {}

    @classmethod
    def trusted(cls: type[R], **values: Any) -> R:
        """A record from values already in their final form (tuples, checked messages and
        infos, a FrozenDict of flags), built without the checks: for the dialect's own hot
        paths. Equal to, and printed like, the checked record of the same values."""
        record = object.__new__(cls)
        record.__dict__.update(cls._defaults)  # type: ignore[attr-defined]
        record.__dict__.update(values)
        return record

    def override(self, **changes: Any) -> Any:
        known = self._field_names
        for key in changes:
            if key not in known:
                raise UsageError(
                    f"hookproof: {type(self).__name__}.override() got unknown field {key!r}."
                    f"{did_you_mean(key, known)} Fields: {', '.join(known)}."
                )
        return replace(self, **changes)  # type: ignore[type-var]

    def __post_init__(self) -> None:
        for name in self._tuple_names:
            value = getattr(self, name)
            if value is not None and not isinstance(value, tuple):
                value = tuple(value)
                object.__setattr__(self, name, value)
            check = _CHECKS.get(name)
            if check is not None and value:
                object.__setattr__(self, name, check(value, f"{type(self).__name__}.{name}"))
        if "return_directly" in self._field_names:
            flags = getattr(self, "return_directly")  # noqa: B009 - only some records have it
            if not isinstance(flags, FrozenDict):
                object.__setattr__(self, "return_directly", return_directly_flags(flags))


def _messages(values: tuple[Any, ...], where: str) -> tuple[Message, ...]:
    if all(isinstance(item, Message) for item in values):
        return values
    checked = []
    for index, item in enumerate(values):
        message = coerce_message(item, where=f"{where}[{index}]")
        if not isinstance(message, Message):
            raise UsageError(
                f"hookproof: {where}[{index}] is a RemoveMessage; a state holds the messages "
                "themselves: leave a message out of the tuple to remove it."
            )
        checked.append(message)
    return tuple(checked)


def _infos(values: tuple[Any, ...], where: str) -> tuple[ToolInfo, ...]:
    if all(isinstance(item, ToolSchema) for item in values):
        return values
    checked = []
    for index, item in enumerate(values):
        if isinstance(item, Mapping):
            item = ToolSchema.model_validate(item)
        elif not isinstance(item, ToolSchema):
            schema = getattr(item, "schema", None)  # a hookproof Tool: its schema
            if not isinstance(schema, ToolSchema):
                raise UsageError(
                    f"hookproof: {where}[{index}] is a {type(item).__name__}; tool infos are "
                    "ToolInfo values (e.g. tool.info(), or state.tool_infos filtered)."
                )
            item = schema
        checked.append(item)
    return tuple(checked)


_CHECKS = {"messages": _messages, "tool_infos": _infos, "deferred_tool_infos": _infos}


def return_directly_flags(value: Any) -> FrozenDict:
    """Tool names (a list, or a name -> flag mapping) as a name -> flag map; a str is refused."""
    if isinstance(value, str):
        raise UsageError(
            f"hookproof: return_directly takes tool names (a list or a dict), got the str "
            f"{value!r}; write return_directly=[{value!r}]."
        )
    if value is None:
        return FrozenDict()
    if isinstance(value, Mapping):
        return FrozenDict({str(name): bool(flag) for name, flag in value.items()})
    return FrozenDict(dict.fromkeys((str(name) for name in value), True))


_TUPLE_FIELDS = frozenset({"messages", "tool_infos", "deferred_tool_infos", "tools", "content"})


def _refuse(self: object, name: str, _value: object = None) -> None:
    raise ImmutableError(
        f"hookproof: {type(self).__name__}.{name} cannot be changed in place; return "
        f"`value.override({name}=...)` from the hook instead (the dialect's records are "
        "immutable so that no hook changes what another hook already saw)."
    )


def _defaults(cls: type) -> dict[str, Any]:
    """Each field's default (a factory's value made once: every default is immutable)."""
    found: dict[str, Any] = {}
    for item in fields(cls):
        if item.default is not MISSING:
            found[item.name] = item.default
        elif item.default_factory is not MISSING:
            found[item.name] = item.default_factory()
    return found


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def _frozen_record(cls: type[R]) -> type[R]:
    built = dataclass(frozen=True)(cls)
    names = tuple(item.name for item in fields(built))  # type: ignore[arg-type]
    built._field_names = names  # type: ignore[attr-defined]
    built._tuple_names = tuple(name for name in names if name in _TUPLE_FIELDS)  # type: ignore[attr-defined]
    built._defaults = _defaults(built)  # type: ignore[attr-defined]
    built.__setattr__ = _refuse  # type: ignore[method-assign]
    built.__delattr__ = _refuse  # type: ignore[method-assign]
    return built


@_frozen_record
class ChatModelAgentContext(_Record):
    """before_agent's input: the run's configuration, which the hook may replace.

    ``return_directly`` maps tool names to a flag; like Eino, a name's presence is what counts
    (``{"x": False}`` still ends the run after ``x``).
    """

    instruction: str = ""
    tools: tuple[Any, ...] = ()
    return_directly: Mapping[str, bool] = field(default_factory=FrozenDict)
    tool_search_tool: ToolInfo | None = None


@_frozen_record
class ChatModelAgentState(_Record):
    """What before/after_model_rewrite_state see and return: the messages the model gets,
    the tools it is shown (``tool_infos``) and deferred tools (None when unused)."""

    messages: tuple[Message, ...] = ()
    tool_infos: tuple[ToolInfo, ...] | None = None
    deferred_tool_infos: tuple[ToolInfo, ...] | None = None


@_frozen_record
class ModelContext(_Record):
    """Per model call: ``tools`` (deprecated in Eino: use state.tool_infos) and the configs."""

    tools: tuple[ToolInfo, ...] = ()
    model_retry_config: Any = None
    model_failover_config: Any = None


@_frozen_record
class ToolContext(_Record):
    """Which call a tool wrapper is wrapping."""

    name: str
    call_id: str


@_frozen_record
class ToolArgument(_Record):
    """The input of an enhanced tool: the arguments as JSON text."""

    text: str = ""


@_frozen_record
class ToolResult(_Record):
    """The output of an enhanced tool: content blocks (text, images, files)."""

    content: tuple[ContentBlock, ...] = ()

    @classmethod
    def of_text(cls, text: str) -> ToolResult:
        return cls(content=(TextBlock(text=text),))

    @property
    def text(self) -> str:
        return "".join(block.text for block in self.content if isinstance(block, TextBlock))


@_frozen_record
class ToolInput(_Record):
    """What a ToolMiddleware endpoint receives (Eino's compose.ToolInput)."""

    name: str
    arguments: str
    call_id: str


@_frozen_record
class ToolOutput(_Record):
    """What a ToolMiddleware endpoint returns: ``result`` is a str, a ToolResult, or an
    iterator of either for streamable endpoints."""

    result: Any


# -- events -------------------------------------------------------------------------------

EventKind = Literal["model_output", "tool_result", "custom", "error", "interrupt", "action"]


@_frozen_record
class AgentAction(_Record):
    """A control action carried by an event; ``interrupted`` holds the interrupt's info."""

    interrupted: Any = None
    exit: bool = False
    customized: Any = None


@_frozen_record
class AgentEvent(_Record):
    """One item of a run's event stream.

    A message event has ``message`` (and ``tool_name`` for a tool result; ``chunks`` when it
    was streamed). A custom event has ``custom``. An error event has ``error`` (the original
    exception) and ``node_path`` (where it happened). An interrupt has ``action.interrupted``.
    """

    agent_name: str = ""
    message: Message | None = None
    tool_name: str | None = None
    is_streaming: bool = False
    chunks: tuple[Message, ...] = ()
    custom: Any = None
    action: AgentAction | None = None
    error: BaseException | None = None
    node_path: str | None = None

    @property
    def kind(self) -> EventKind:
        if self.error is not None:
            return "error"
        if self.action is not None and self.action.interrupted is not None:
            return "interrupt"
        if isinstance(self.message, ToolMessage):
            return "tool_result"
        if isinstance(self.message, AssistantMessage):
            return "model_output"
        return "action" if self.action is not None and self.custom is None else "custom"

    def describe(self) -> str:
        """One line for people: kind and the essentials."""
        if self.error is not None:
            where = f" at {self.node_path}" if self.node_path else ""
            return f"error{where}: {type(self.error).__name__}: {self.error}"
        if self.kind == "interrupt":
            return f"interrupt: {self.action.interrupted!r:.80}"  # type: ignore[union-attr]
        if self.message is not None:
            tool = f" {self.tool_name}" if self.tool_name else ""
            calls = getattr(self.message, "tool_calls", ())
            if calls and not self.message.text:
                return f"{self.kind}: calls {', '.join(call.name for call in calls)}"
            return f"{self.kind}{tool}: {self.message.text!r:.80}"
        return f"{self.kind}: {self.custom!r:.80}"


# -- messages and streams -----------------------------------------------------------------


def concat_messages(chunks: tuple[AssistantMessage, ...]) -> AssistantMessage:
    """Join streamed chunks into one message: texts joined, tool calls in order, the
    first chunk's metadata (Eino's ConcatMessages, simplified to what hookproof shows)."""
    if not chunks:
        raise EinoError(
            "hookproof: the model's stream ended without a single chunk; a stream must yield "
            "at least one AssistantMessage."
        )
    if len(chunks) == 1:
        return chunks[0]
    blocks: list[ContentBlock] = []
    for chunk in chunks:
        for block in chunk.content:
            if blocks and isinstance(block, TextBlock) and isinstance(blocks[-1], TextBlock):
                blocks[-1] = TextBlock(text=blocks[-1].text + block.text)
            else:
                blocks.append(block)
    calls = tuple(call for chunk in chunks for call in chunk.tool_calls)
    return construct(
        AssistantMessage,
        content=tuple(blocks),
        tool_calls=calls,
        id=chunks[0].id,
        name=chunks[0].name,
        additional_kwargs=_merged(chunk.additional_kwargs for chunk in chunks),
        response_metadata=_merged(chunk.response_metadata for chunk in chunks),
    )


def _merged(maps: Iterable[Mapping[str, Any]]) -> FrozenDict:
    """Metadata of streamed chunks: a later chunk's key wins (finish reason, usage)."""
    merged: dict[str, Any] = {}
    for item in maps:
        merged.update(item)
    return FrozenDict(merged)


def collect(stream: Any, what: str) -> tuple[Any, ...]:
    """Materialise a stream (any iterable) into a tuple, with a clear error for non-streams."""
    if isinstance(stream, str | bytes) or not hasattr(stream, "__iter__"):
        raise UsageError(
            f"hookproof: {what} returned {type(stream).__name__}; a streaming endpoint returns "
            "an iterator (a generator or a list) of chunks."
        )
    chunks: list[Any] = []
    try:
        for chunk in stream:
            chunks.append(chunk)
    except Exception as error:
        if chunks and not partial_chunks(error):
            # what the stream gave before failing, for retry and failover decisions
            with contextlib.suppress(AttributeError, TypeError):
                error.hookproof_partial_chunks = tuple(chunks)  # type: ignore[attr-defined]
        raise
    return tuple(chunks)


def partial_chunks(error: BaseException) -> tuple[Any, ...]:
    """What a failed stream yielded before ``error`` (empty when it was not a stream)."""
    found = getattr(error, "hookproof_partial_chunks", ())
    return found if isinstance(found, tuple) else ()


def replay(chunks: tuple[Any, ...]) -> Iterator[Any]:
    return iter(chunks)
