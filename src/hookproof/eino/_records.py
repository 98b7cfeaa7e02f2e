"""The Eino dialect's frozen records: hook inputs and states, tool payloads, events."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar, dataclass_transform

from hookproof._support.frozen import FrozenDict
from hookproof.errors import (
    ImmutableError,
    UsageError,
    did_you_mean,
    safe_repr,
)
from hookproof.messages import (
    AssistantMessage,
    ContentBlock,
    Message,
    TextBlock,
    ToolMessage,
    coerce_message,
)
from hookproof.tools import ToolSchema

if TYPE_CHECKING:
    pass


__all__ = [
    "AgentAction",
    "AgentEvent",
    "ChatModelAgentContext",
    "ChatModelAgentState",
    "ModelContext",
    "ToolArgument",
    "ToolContext",
    "ToolInfo",
    "ToolInput",
    "ToolOutput",
    "ToolResult",
    "return_directly_flags",
]

R = TypeVar("R")
_new, _set = object.__new__, object.__setattr__  # what a frozen record is built with
ToolInfo = ToolSchema  # Eino's schema.ToolInfo: name, description, JSON Schema parameters


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
        record = _new(cls)
        _set(record, "__dict__", {**cls._defaults, **values})  # type: ignore[attr-defined]
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


_TUPLE_FIELDS = frozenset(
    {"messages", "tool_infos", "deferred_tool_infos", "tools", "content", "interrupts"}
)


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
    the tools it is shown (``tool_infos``) and deferred tools (None when unused).

    Both persist from one model call to the next, as in Eino: a hook sees the list the
    previous call left, its own rewrites included. ``tool_infos=None`` (a fresh state) shows
    the model no tool for this call; the next call starts again from the run's tools, as it
    does after a resume when the list was empty (Eino's checkpoint keeps no empty list)."""

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
    """A control action carried by an event. A pause has every interrupt in ``interrupts``
    (several when several tool calls of one message interrupted; resume answers them all)
    and the first in ``interrupted``."""

    interrupted: Any = None
    interrupts: tuple[Any, ...] = ()
    exit: bool = False
    customized: Any = None


@_frozen_record
class AgentEvent(_Record):
    """One item of a run's event stream.

    A message event has ``message`` (and ``tool_name`` for a tool result; ``chunks`` when it
    was streamed). A streamed model output that retry rejected has ``stream_error``, the
    WillRetryError its stream ended in (``message`` is what it streamed before). A custom
    event has ``custom``. An error event has ``error`` (the original exception) and
    ``node_path`` (where it happened). An interrupt has ``action.interrupted``.
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
    stream_error: BaseException | None = None

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
            return f"interrupt: {safe_repr(self.action.interrupted, 80)}"  # type: ignore[union-attr]
        if self.stream_error is not None:
            ended = f"{type(self.stream_error).__name__}: {self.stream_error}"
            return f"{self.kind} (stream ended in {ended})"
        if self.message is not None:
            tool = f" {self.tool_name}" if self.tool_name else ""
            calls = getattr(self.message, "tool_calls", ())
            if calls and not self.message.text:
                return f"{self.kind}: calls {', '.join(call.name for call in calls)}"
            return f"{self.kind}{tool}: {safe_repr(self.message.text, 80)}"
        return f"{self.kind}: {safe_repr(self.custom, 80)}"
