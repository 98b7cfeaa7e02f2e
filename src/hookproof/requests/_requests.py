"""ModelRequest and ToolCallRequest: what model-call and tool-call layers inspect or replace
on the way to the model and to a tool."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic

from typing_extensions import TypeVar as DefaultedTypeVar  # PEP 696 defaults before 3.13

from hookproof._secrets.reprs import redacted_repr
from hookproof._support.frozen import FrozenDict, FrozenList, freeze
from hookproof.context import Runtime, ToolRuntime
from hookproof.errors import InvalidInputError, UsageError, safe_repr
from hookproof.messages import Message, SystemMessage, ToolCall, coerce_message, text_message
from hookproof.requests._immutability import check_override_keys, immutable, replaced
from hookproof.tools import Tool, ToolSchema

__all__ = ["ModelRequest", "ToolCallRequest", "as_system_message"]

# A type parameter as LangChain's (ModelRequest[MyContext]); it only types the values, so
# subscripting costs nothing when a request is built or read. An unparameterised request's
# context is Any (LangChain's is None, which makes every ``request.runtime.context.field`` a
# type error until the hook names its context type).
ContextT = DefaultedTypeVar("ContextT", default=Any)


def _as_tool(value: object) -> Tool | ToolSchema:
    if isinstance(value, Tool | ToolSchema):
        return value
    if isinstance(value, Mapping):
        return ToolSchema.model_validate(value)
    raise UsageError(
        f"hookproof: request.tools may hold Tool or ToolSchema values, not "
        f"{type(value).__name__} ({safe_repr(value, 60)}). Build tools with @tool."
    )


def as_system_message(value: object, what: str = "system_message") -> SystemMessage | None:
    """A SystemMessage from a str, a SystemMessage or None; anything else is an error."""
    if value is None or isinstance(value, SystemMessage):
        return value
    if type(value) is str:  # every str is valid text: the validated message, built directly
        return text_message(SystemMessage, value)
    if isinstance(value, str):
        return SystemMessage(content=value)
    raise UsageError(
        f"hookproof: {what} must be a str, a SystemMessage or None, not {type(value).__name__}."
    )


def _as_messages(values: Sequence[object]) -> FrozenList[Message]:
    result = [coerce_message(item, where="request.messages") for item in values]
    return FrozenList(item for item in result if isinstance(item, Message))


_MODEL_COERCE: dict[str, Callable[[Any], Any]] = {
    "messages": _as_messages,
    "tools": lambda values: FrozenList(_as_tool(item) for item in values),
    "system_message": as_system_message,
    "state": freeze,
    "model_settings": freeze,
    "response_format": freeze,
    "tool_choice": freeze,
}


_NO_MESSAGES: FrozenList[Message] = FrozenList()
_NO_TOOLS: FrozenList[Tool | ToolSchema] = FrozenList()
_EMPTY = FrozenDict()


_set_field = object.__setattr__


@immutable
@redacted_repr
@dataclass(frozen=True, slots=True, kw_only=True, init=False)
class ModelRequest(Generic[ContextT]):
    """Everything a wrap_model_call layer may inspect or replace before the model is called.

    ``system_prompt="text"`` (on construction and in ``override``) is LangChain's shorthand
    for ``system_message=SystemMessage("text")``; giving both is an error.
    """

    model: Any
    messages: FrozenList[Message]
    system_message: SystemMessage | None
    tools: FrozenList[Tool | ToolSchema]
    tool_choice: Any
    response_format: Any
    state: FrozenDict
    runtime: Runtime[ContextT] | None
    model_settings: FrozenDict

    # Written out (not the dataclass's) for system_prompt; as fast: override builds through it.
    def __init__(
        self,
        *,
        model: Any,
        messages: FrozenList[Message] = _NO_MESSAGES,
        system_message: SystemMessage | None = None,
        system_prompt: str | None = None,
        tools: FrozenList[Tool | ToolSchema] = _NO_TOOLS,
        tool_choice: Any = None,
        response_format: Any = None,
        state: FrozenDict = _EMPTY,
        runtime: Runtime[ContextT] | None = None,
        model_settings: FrozenDict = _EMPTY,
    ) -> None:
        if system_prompt is not None:
            system_message = _prompt_message(system_prompt, system_message)
        _set_field(self, "model", model)
        _set_field(self, "messages", messages)
        _set_field(self, "system_message", system_message)
        _set_field(self, "tools", tools)
        _set_field(self, "tool_choice", tool_choice)
        _set_field(self, "response_format", response_format)
        _set_field(self, "state", state)
        _set_field(self, "runtime", runtime)
        _set_field(self, "model_settings", model_settings)

    @classmethod
    def create(cls, **values: Any) -> ModelRequest[Any]:
        """Build a request, coercing lists, dicts and strings to their immutable forms."""
        return cls(**{key: _MODEL_COERCE.get(key, _same)(value) for key, value in values.items()})

    def override(self, **changes: Any) -> ModelRequest[ContextT]:
        """A new request with ``changes``; this one is left exactly as it was."""
        if "system_prompt" in changes:
            _prompt_override(changes)
        check_override_keys(ModelRequest, changes, _PROMPT_KEY)
        coerced = {key: _MODEL_COERCE.get(key, _same)(value) for key, value in changes.items()}
        return replaced(self, coerced)

    @property
    def system_prompt(self) -> str | None:
        return None if self.system_message is None else self.system_message.text

    @property
    def tool_names(self) -> list[str]:
        return sorted(item.name for item in self.tools)


def _same(value: Any) -> Any:
    return value


_PROMPT_KEY = ("system_prompt",)  # accepted by override(), though not a field


def _both_system_error() -> InvalidInputError:
    return InvalidInputError(
        "hookproof: ModelRequest got both system_prompt and system_message; they are two "
        "ways to set the same system message, so one would silently win. Pass one of them: "
        "system_prompt='text' or system_message=SystemMessage('text')."
    )


def _prompt_message(prompt: object, message: SystemMessage | None) -> SystemMessage | None:
    """The system message a construction's ``system_prompt`` stands for."""
    if message is not None:
        raise _both_system_error()
    return as_system_message(prompt, "system_prompt")


def _prompt_override(changes: dict[str, Any]) -> None:
    """Turn an override's ``system_prompt`` into its ``system_message`` (None clears it)."""
    if "system_message" in changes:
        raise _both_system_error()
    changes["system_message"] = as_system_message(changes.pop("system_prompt"), "system_prompt")


@immutable
@redacted_repr
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallRequest:
    """One tool call on its way to execution; ``tool`` is None when the name is unknown."""

    tool_call: ToolCall
    tool: Tool | None
    state: FrozenDict = _EMPTY
    runtime: ToolRuntime[Any] | None = None

    def override(self, **changes: Any) -> ToolCallRequest:
        check_override_keys(ToolCallRequest, changes)
        call = changes.get("tool_call")
        if isinstance(call, Mapping) and not isinstance(call, ToolCall):  # {**call, ...}
            changes["tool_call"] = ToolCall.model_validate(dict(call))
        if "state" in changes:
            state = changes["state"] = freeze(changes["state"])
            runtime = changes.get("runtime", self.runtime)
            if isinstance(runtime, ToolRuntime):  # the tool sees the new state, as in LangGraph
                changes["runtime"] = runtime.with_state(state)
        return replaced(self, changes)
