"""Tools: a schema the model sees (ToolSchema) and, on a Tool, the code that executes it.

``@tool`` builds a Tool from a function: the name from the function (or the argument), the
description from the docstring, and the JSON Schema of the parameters from pydantic.
Parameters annotated ``ToolRuntime`` are injected at call time and never reach the schema;
so are ``Annotated[dict, InjectedState]`` (the state the call sees; ``InjectedState("key")``
for one key), ``Annotated[str, InjectedToolCallId]`` (the call's id), LangGraph's markers of
the same names, and parameters annotated with a context type that marks itself injectable
(the Eino dialect's ``RunContext``: such a parameter receives the run's ctx).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Self, TypeAlias, get_origin, get_type_hints, overload

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from hookproof._support.frozen import FrozenDict
from hookproof._support.frozen_model import FrozenMap, ImmutableModel
from hookproof.context import ToolRuntime
from hookproof.errors import InjectedStateError, InvalidInputError, UsageError, safe_repr

__all__ = ["InjectedState", "InjectedToolCallId", "Tool", "ToolSchema", "tool"]

ToolFunc: TypeAlias = Callable[..., Any]


class ToolSchema(ImmutableModel):
    """What the model is shown of a tool: name, description and a JSON Schema.

    The name is checked first (``check_tool_name``), however the schema is made (pydantic
    runs this ``__init__`` for ``model_validate`` too); any problem is an InvalidInputError.
    """

    name: str
    description: str = ""
    parameters: FrozenMap = Field(
        default_factory=lambda: FrozenDict({"type": "object", "properties": {}})
    )

    def __init__(self, **data: Any) -> None:
        check_tool_name(data.get("name"))
        try:
            super().__init__(**data)
        except ValidationError as error:
            raise _invalid_schema(data["name"], error) from None

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **options: Any) -> Self:
        try:
            return super().model_validate(obj, *args, **options)
        except ValidationError as error:  # pydantic wraps what __init__ raised: unwrap it
            raise _raised_by_init(error) or _invalid_schema(None, error) from None


_SCHEMA_FIELD_PROBLEMS = {
    "string_type": "must be a string",
    "dict_type": "must be a mapping (a JSON Schema object)",
    "extra_forbidden": "is not a field (a ToolSchema has name, description and parameters)",
    "model_type": "must be a mapping with name, description and parameters",
}


def _raised_by_init(error: ValidationError) -> InvalidInputError | None:
    causes = [item.get("ctx", {}).get("error") for item in error.errors(include_url=False)]
    return next((cause for cause in causes if isinstance(cause, InvalidInputError)), None)


def _invalid_schema(name: object, error: ValidationError) -> InvalidInputError:
    problems = "; ".join(
        f"{'.'.join(str(part) for part in item['loc']) or 'the schema'} "
        f"{_SCHEMA_FIELD_PROBLEMS.get(item['type'], item['msg'].lower())}, "
        f"got {type(item['input']).__name__}"
        for item in error.errors(include_url=False)
    )
    return InvalidInputError(
        f"hookproof: tool schema{'' if name is None else f' {safe_repr(name, 60)}'} is invalid: "
        f"{problems}. Give a str description "
        "and a JSON Schema object as parameters, or build the tool with @tool."
    )


def check_tool_name(name: object) -> None:
    """Refuse a tool name that would corrupt a snapshot line or a provider request."""
    if not isinstance(name, str):
        raise UsageError(
            f"hookproof: a tool name must be a str, got {type(name).__name__} "
            f"{safe_repr(name, 60)}."
        )
    problem = _name_problem(name)
    if problem:
        raise InvalidInputError(
            f"hookproof: tool name {safe_repr(name, 80)} {problem}. Tool names are written into "
            "snapshot files and sent to provider APIs, which accept letters, digits, _ and -. "
            'Rename the tool, e.g. @tool("lookup_orders").'
        )


_LONGEST_TOOL_NAME = 64  # what OpenAI, Anthropic and Gemini accept


def _name_problem(name: str) -> str | None:
    if not name:
        return "is empty"
    if len(name) > _LONGEST_TOOL_NAME:
        return f"is {len(name)} characters long; providers accept at most {_LONGEST_TOOL_NAME}"
    for char in name:
        if char in "/\\":
            return f"contains {char!r}, a path separator"
        # Not printable: control characters and line breaks, invisible format characters
        # (direction overrides among them) and surrogates, which UTF-8 files cannot hold.
        if not char.isprintable():
            return f"contains {char!r}, a control or invisible character"
    return None


@dataclass(frozen=True, slots=True, eq=False)
class Tool:
    """A tool the runtime can execute. ``schema`` is what the model sees."""

    schema: ToolSchema
    func: ToolFunc | None = None
    coroutine: Callable[..., Awaitable[Any]] | None = None
    args_model: type[BaseModel] | None = None
    runtime_params: tuple[str, ...] = ()
    context_params: tuple[str, ...] = ()
    return_direct: bool = False
    # (parameter, state key or None for the whole state, required: no default to fall back on)
    state_params: tuple[tuple[str, str | None, bool], ...] = ()
    call_id_params: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.schema.name

    def __copy__(self) -> Tool:
        return self

    def __deepcopy__(self, _memo: dict[int, Any]) -> Tool:
        return self

    @property
    def description(self) -> str:
        return self.schema.description

    @property
    def parameters(self) -> Mapping[str, Any]:
        return self.schema.parameters

    def with_description(self, description: str) -> Tool:
        """A copy shown to the model with another description; it executes the same code."""
        return replace(self, schema=self.schema.override(description=description))

    def prepare(self, args: Mapping[str, Any], runtime: ToolRuntime[Any]) -> dict[str, Any]:
        """Validate the model's arguments and add the injected runtime parameters."""
        kwargs = dict(args)
        if self.args_model is not None:
            validated = self.args_model.model_validate(kwargs)
            model = type(validated)
            # The dict model_fields returns, without that property's two Python calls.
            fields = getattr(model, "__pydantic_fields__", None) or model.model_fields
            kwargs = {name: getattr(validated, name) for name in fields}
        kwargs.update(dict.fromkeys(self.runtime_params, runtime))
        kwargs.update(dict.fromkeys(self.context_params, runtime.context))
        if self.state_params:
            kwargs.update(self._state_values(runtime.state))
        if self.call_id_params:
            kwargs.update(dict.fromkeys(self.call_id_params, runtime.tool_call_id))
        return kwargs

    def _state_values(self, state: Mapping[str, Any]) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for param, key, required in self.state_params:
            if key is None:
                values[param] = state
            elif key in state:
                values[param] = state[key]
            elif required:
                raise InjectedStateError(
                    f"hookproof: tool {self.name!r} parameter {param!r} is "
                    f"InjectedState({key!r}), but the state this call sees has no {key!r} "
                    f"(keys: {sorted(state)}), so the tool cannot run. Declare the key in a "
                    "state_schema and write it before the tool runs, or give the parameter a "
                    "default."
                )
        return values

    def run(self, args: Mapping[str, Any], runtime: ToolRuntime[Any]) -> Any:
        """Execute synchronously (validation errors are raised as pydantic ValidationError)."""
        if self.func is None:
            raise InvalidInputError(
                f"hookproof: tool {self.name!r} has no synchronous function. "
                "Run the agent with ainvoke(), or give the tool a sync implementation."
            )
        return self.func(**self.prepare(args, runtime))

    async def arun(self, args: Mapping[str, Any], runtime: ToolRuntime[Any]) -> Any:
        if self.coroutine is not None:
            return await self.coroutine(**self.prepare(args, runtime))
        return self.run(args, runtime)


class InjectedState:
    """Marks a tool parameter that receives the state the call sees, never the model's
    arguments: ``state: Annotated[dict, InjectedState]`` gets the whole (frozen) state,
    ``todos: Annotated[list, InjectedState("todos")]`` one key's value (a parameter with a
    default keeps it when the key is absent; without one, the call fails). LangGraph's
    marker of the same name, on a hookproof @tool, means the same."""

    __slots__ = ("field",)

    def __init__(self, field: str | None = None) -> None:
        self.field = field

    def __repr__(self) -> str:
        return f"InjectedState({self.field!r})"


class InjectedToolCallId:
    """Marks a tool parameter, ``call_id: Annotated[str, InjectedToolCallId]``, that receives
    the id of the tool call being run (as LangChain's marker of the same name does)."""


# What an injected parameter receives; a parameter with none of these is the model's to fill.
_RUNTIME, _CONTEXT, _STATE, _CALL_ID = "runtime", "context", "state", "call_id"
_FOREIGN_ROOTS = ("langgraph", "langchain_core", "langchain")


def _is_runtime_annotation(annotation: Any) -> bool:
    return annotation is ToolRuntime or get_origin(annotation) is ToolRuntime


def _is_context_annotation(annotation: Any) -> bool:
    return getattr(annotation, "__hookproof_injected_context__", False) is True


def _is_marker(value: object, marker: type) -> bool:
    """``value`` is ``marker`` or LangChain's class of the same name (or an instance)."""
    cls = value if isinstance(value, type) else type(value)
    if issubclass(cls, marker):
        return True
    root = getattr(cls, "__module__", "").partition(".")[0]
    return root in _FOREIGN_ROOTS and any(c.__name__ == marker.__name__ for c in cls.__mro__)


def _injection(annotation: Any) -> tuple[str, str | None] | None:
    """(what the parameter receives, the state key for InjectedState("key")), or None."""
    if _is_runtime_annotation(annotation):
        return _RUNTIME, None
    if _is_context_annotation(annotation):
        return _CONTEXT, None
    for marker in getattr(annotation, "__metadata__", ()):
        if _is_marker(marker, InjectedToolCallId):
            return _CALL_ID, None
        if _is_marker(marker, InjectedState):
            return _STATE, None if isinstance(marker, type) else getattr(marker, "field", None)
    return None


def _build_args_model(func: ToolFunc, name: str) -> tuple[type[BaseModel], dict[str, list[Any]]]:
    """The parameters the model fills (as a pydantic model) and the injected ones by kind."""
    hints = get_type_hints(func, include_extras=True)
    fields: dict[str, Any] = {}
    injected: dict[str, list[Any]] = {_RUNTIME: [], _CONTEXT: [], _STATE: [], _CALL_ID: []}
    for param in inspect.signature(func).parameters.values():
        annotation = hints.get(param.name, Any)
        found = _injection(annotation)
        if found is not None:
            kind, key = found
            required = param.default is param.empty
            injected[kind].append((param.name, key, required) if kind == _STATE else param.name)
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise UsageError(
                f"hookproof: @tool {name!r} takes *{param.name}; a model can only fill named "
                "parameters. Give the function explicit parameters."
            )
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, default)
    config = ConfigDict(extra="forbid", arbitrary_types_allowed=False)
    model = create_model(f"{name}_arguments", __config__=config, **fields)
    return model, injected


def _schema_of(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    schema.pop("title", None)
    schema.pop("additionalProperties", None)
    schema.setdefault("properties", {})
    return schema


def _make_tool(func: ToolFunc, name: str | None, description: str | None) -> Tool:
    tool_name = func.__name__ if name is None else name
    check_tool_name(tool_name)  # before the argument model, whose class name holds it
    doc = description if description is not None else inspect.getdoc(func)
    if not doc:
        raise UsageError(
            f"hookproof: @tool {tool_name!r} has no description. The model chooses tools by "
            "their description: add a docstring or pass description=..."
        )
    model, injected = _build_args_model(func, tool_name)
    schema = ToolSchema(name=tool_name, description=doc, parameters=_schema_of(model))
    is_async = inspect.iscoroutinefunction(func)
    return Tool(
        schema=schema,
        func=None if is_async else func,
        coroutine=func if is_async else None,
        args_model=model,
        runtime_params=tuple(injected[_RUNTIME]),
        context_params=tuple(injected[_CONTEXT]),
        state_params=tuple(injected[_STATE]),
        call_id_params=tuple(injected[_CALL_ID]),
    )


@overload
def tool(func: ToolFunc, /) -> Tool: ...
@overload
def tool(name: str, /, *, description: str | None = None) -> Callable[[ToolFunc], Tool]: ...
@overload
def tool(*, description: str | None = None) -> Callable[[ToolFunc], Tool]: ...


def tool(
    func_or_name: ToolFunc | str | None = None, /, *, description: str | None = None
) -> Tool | Callable[[ToolFunc], Tool]:
    """Make a Tool from a function: ``@tool``, ``@tool("name")`` or ``@tool(description=...)``."""
    if callable(func_or_name):
        return _make_tool(func_or_name, None, description)
    if func_or_name is not None and not isinstance(func_or_name, str):
        raise UsageError(
            f"hookproof: @tool takes a function or a name, got {type(func_or_name).__name__}."
        )

    def decorate(func: ToolFunc) -> Tool:
        return _make_tool(func, func_or_name, description)

    return decorate


def schema_of(item: Tool | ToolSchema) -> ToolSchema:
    """The schema the model sees, for a Tool or a bare ToolSchema."""
    return item.schema if isinstance(item, Tool) else item


def tool_result_text(value: Any) -> str:
    """The text of a tool's return value as the model sees it (JSON for dicts and lists)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict | list | tuple):
        import json  # here, not at the top: only tools returning containers need it

        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def validation_message(tool_name: str, error: ValidationError) -> str:
    problems = "; ".join(
        f"{'.'.join(str(part) for part in item['loc']) or '(arguments)'}: {item['msg']}"
        for item in error.errors(include_url=False)
    )
    return f"Error: invalid arguments for tool {tool_name!r}: {problems}. Fix them and call again."


def as_tool(value: object, *, source: str) -> Tool:
    """Accept a Tool, a plain function (converted with @tool) or fail clearly."""
    if isinstance(value, Tool):
        return value
    if callable(value):
        return _make_tool(value, None, None)
    raise UsageError(
        f"hookproof: {source} contains {safe_repr(value, 80)} ({type(value).__name__}), "
        "which is not a tool. Pass functions decorated with @tool, or plain functions with a "
        "docstring."
    )
