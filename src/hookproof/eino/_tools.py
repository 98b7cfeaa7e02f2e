"""Eino tools as Python protocols, and which endpoint (and wrapper) a call goes through.

A tool has ``info() -> ToolInfo`` and one or more of ``invokable_run``, ``streamable_run``,
``enhanced_invokable_run`` and ``enhanced_streamable_run``. A hookproof ``@tool`` is taken as
an invokable tool. Selection follows Eino: enhanced wins when implemented; in invoke mode
the invokable side is preferred, in stream mode the streamable side; a missing side is
served by the other one (a 1-chunk stream, or a concatenated result).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import ValidationError

from hookproof._support.frozen import FrozenDict, FrozenList, thaw
from hookproof.context import ToolRuntime
from hookproof.eino._context import RunContext
from hookproof.eino._records import ToolArgument, ToolInfo, ToolResult
from hookproof.eino._streams import collect
from hookproof.errors import DuplicateToolError, ToolError, UsageError
from hookproof.messages import ContentBlock, TextBlock, ToolMessage, construct
from hookproof.tools import Tool, ToolSchema, tool_result_text, validation_message

__all__ = [
    "EndpointKind",
    "EnhancedInvokableTool",
    "EnhancedStreamableTool",
    "InvokableTool",
    "StreamableTool",
    "select_endpoint",
]

EndpointKind = Literal["invokable", "streamable", "enhanced_invokable", "enhanced_streamable"]
RUN_METHODS: dict[EndpointKind, str] = {
    "invokable": "invokable_run",
    "streamable": "streamable_run",
    "enhanced_invokable": "enhanced_invokable_run",
    "enhanced_streamable": "enhanced_streamable_run",
}

STREAMABLE = frozenset({"streamable", "enhanced_streamable"})
ENHANCED = frozenset({"enhanced_invokable", "enhanced_streamable"})


@runtime_checkable
class InvokableTool(Protocol):
    """A tool run with JSON arguments that returns text."""

    def info(self) -> ToolInfo: ...

    def invokable_run(self, ctx: RunContext, arguments: str) -> str: ...


@runtime_checkable
class StreamableTool(Protocol):
    """A tool run with JSON arguments that streams text chunks."""

    def info(self) -> ToolInfo: ...

    def streamable_run(self, ctx: RunContext, arguments: str) -> Iterator[str]: ...


@runtime_checkable
class EnhancedInvokableTool(Protocol):
    """A tool run with a ToolArgument that returns a ToolResult (text, images, files)."""

    def info(self) -> ToolInfo: ...

    def enhanced_invokable_run(self, ctx: RunContext, argument: ToolArgument) -> ToolResult: ...


@runtime_checkable
class EnhancedStreamableTool(Protocol):
    """A tool run with a ToolArgument that streams ToolResults."""

    def info(self) -> ToolInfo: ...

    def enhanced_streamable_run(
        self, ctx: RunContext, argument: ToolArgument
    ) -> Iterator[ToolResult]: ...


_UNSEEN_RUNTIME: ToolRuntime[Any] = ToolRuntime(state=FrozenDict())


class FunctionTool:
    """A hookproof Tool seen as an Eino invokable tool: JSON text in, text out."""

    def __init__(self, tool: Tool) -> None:
        self.tool = tool
        self._sees_runtime = _sees_runtime(tool)

    def info(self) -> ToolInfo:
        return self.tool.schema

    def invokable_run(
        self,
        ctx: RunContext,
        arguments: str,
        *,
        call_id: str | None = None,
        state: Mapping[str, Any] | None = None,
    ) -> str:
        """Runs the function; a ToolRuntime parameter gets the ctx as its context."""
        args = arguments_value(arguments or "{}")
        runtime: ToolRuntime[Any] = (
            ToolRuntime(context=ctx, state=state or {}, tool_call_id=call_id)
            if self._sees_runtime
            else _UNSEEN_RUNTIME  # no parameter of the function receives it
        )
        try:
            kwargs = self.tool.prepare(args, runtime)
        except ValidationError as error:
            raise ToolError(validation_message(self.tool.name, error)) from error
        if self.tool.func is None:
            raise UsageError(
                f"hookproof: tool {self.tool.name!r} is async only; ChatModelAgent runs tools "
                "synchronously. Give it a sync function."
            )
        return tool_result_text(self.tool.func(**kwargs))

    def __repr__(self) -> str:
        return f"FunctionTool({self.tool.name!r})"


def as_eino_tool(value: object, where: str) -> Any:
    if isinstance(value, Tool):
        return FunctionTool(value)
    if not callable(getattr(value, "info", None)) or not implemented(value):
        raise UsageError(
            f"hookproof: {where} is a {type(value).__name__}, which is not an Eino tool. A "
            "tool has info() -> ToolInfo and at least one of invokable_run, streamable_run, "
            "enhanced_invokable_run, enhanced_streamable_run; or use hookproof's @tool."
        )
    return value


def implemented(tool: object) -> frozenset[EndpointKind]:
    return frozenset(
        kind for kind, method in RUN_METHODS.items() if callable(getattr(tool, method, None))
    )


def info_of(tool: object) -> ToolInfo:
    info = tool.info()  # type: ignore[attr-defined]
    if isinstance(info, ToolSchema):
        return info
    if isinstance(info, Mapping):
        return ToolSchema.model_validate(info)
    raise UsageError(
        f"hookproof: {type(tool).__name__}.info() returned {type(info).__name__}; it must "
        "return a ToolInfo (hookproof.eino.ToolInfo(name=..., description=..., parameters=...))."
    )


def tool_map(tools: tuple[Any, ...], where: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for index, item in enumerate(tools):
        name = info_of(item).name
        if name in found:
            raise DuplicateToolError(
                f"hookproof: {where} has two tools named {name!r} (at {index} and before). "
                "The model would see one schema while the run executes the other; rename one.",
                tool_name=name,
            )
        found[name] = item
    return found


@dataclass(frozen=True, slots=True)
class ToolIndex:
    """Tools (``source``) as a run uses them: by name, their infos, their endpoints."""

    source: tuple[Any, ...]
    by_name: dict[str, Any]
    infos: tuple[ToolInfo, ...]
    kinds: dict[str, frozenset[EndpointKind]]
    frozen_infos: FrozenList[ToolInfo]  # the infos as the state keeps them


def index_tools(source: tuple[Any, ...], item_where: str, where: str) -> ToolIndex:
    """``item_where`` names each item by its position (``{index}``) in errors."""
    tools = tuple(
        as_eino_tool(item, item_where.format(index=index)) for index, item in enumerate(source)
    )
    by_name = tool_map(tools, where)
    kinds = {name: implemented(tool) for name, tool in by_name.items()}
    infos = tuple(info_of(item) for item in tools)
    return ToolIndex(source, by_name, infos, kinds, FrozenList(infos))


def select_endpoint(tool: object, streaming: bool) -> EndpointKind:
    """Which endpoint serves a call (the wrapper-selection table of the spec)."""
    return endpoint_of(implemented(tool), streaming)


def endpoint_of(kinds: frozenset[EndpointKind], streaming: bool) -> EndpointKind:
    """select_endpoint for a tool that implements ``kinds``."""
    found = _ENDPOINTS.get((kinds, streaming))
    if found is None:
        found = _ENDPOINTS[kinds, streaming] = _endpoint(kinds, streaming)
    return found


# at most 2 x 16 entries: the subsets of the four kinds, in each mode
_ENDPOINTS: dict[tuple[frozenset[EndpointKind], bool], EndpointKind] = {}


def _endpoint(kinds: frozenset[EndpointKind], streaming: bool) -> EndpointKind:
    enhanced = kinds & {"enhanced_invokable", "enhanced_streamable"}
    prefix = "enhanced_" if enhanced else ""
    has_invokable = f"{prefix}invokable" in kinds
    has_streamable = f"{prefix}streamable" in kinds
    if streaming:
        side = "streamable" if has_streamable else "invokable"
    else:
        side = "invokable" if has_invokable else "streamable"
    return f"{prefix}{side}"  # type: ignore[return-value]


@dataclass(slots=True)
class ToolCall:
    """One tool call on its way through the tool layers. Never changed in place (layers
    further out still hold it): a layer passes on a copy (``with_input``)."""

    run: Any  # the EinoRun
    ctx: RunContext
    name: str
    call_id: str
    arguments: str
    tool: Any
    kind: EndpointKind
    streaming: bool
    index: int = -1  # position in the model's message (ids may be missing or repeat)

    def with_input(self, ctx: RunContext, arguments: str) -> ToolCall:
        if not isinstance(ctx, RunContext):
            raise UsageError(
                f"hookproof: a tool endpoint was called with {type(ctx).__name__} as ctx; pass "
                "the ctx the wrapper received (or one derived with ctx.with_value)."
            )
        if not isinstance(arguments, str):
            raise UsageError(
                f"hookproof: a tool endpoint of {self.name!r} was called with "
                f"{type(arguments).__name__} arguments; they are JSON text (str)."
            )
        if ctx is self.ctx and arguments == self.arguments:
            return self  # passed on as received (the usual wrapper)
        return ToolCall(
            self.run,
            self.run.bind(ctx),
            self.name,
            self.call_id,
            arguments,
            self.tool,
            self.kind,
            self.streaming,
            self.index,
        )


# json.dumps builds an encoder per call, and an encoder its C scanner per call: both are
# built once here. Frozen arguments cannot hold themselves, so no circular-reference check.
_ARGUMENTS_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _frozen_encoder() -> Any:
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    markers, indent, sort_keys, skipkeys, allow_nan = None, None, False, False, True
    try:
        encoder = make(
            markers,
            _ARGUMENTS_ENCODER.default,
            json.encoder.encode_basestring,
            indent,
            ":",
            ",",
            sort_keys,
            skipkeys,
            allow_nan,
        )
    except TypeError:  # another Python's scanner takes other arguments: json.dumps' path
        return None
    return encoder


_FROZEN_ENCODER = _frozen_encoder()
_SCAN: Callable[[str, int], tuple[Any, int]] = json.decoder.JSONDecoder().scan_once  # type: ignore[attr-defined]


def arguments_text(args: Mapping[str, Any]) -> str:
    if type(args) is FrozenDict and _FROZEN_ENCODER is not None:
        try:  # frozen args are dicts and tuples, as JSON encodes them
            return "".join(_FROZEN_ENCODER(args, 0))
        except TypeError:
            pass  # a value JSON cannot encode as it is: the thawed copy says which
    return _ARGUMENTS_ENCODER.encode(thaw(args))


def arguments_value(text: str) -> Any:
    """json.loads(text), without its two whitespace scans when the text has none around it;
    anything else (errors included) is json.loads' own."""
    try:
        value, end = _SCAN(text, 0)
    except Exception:  # noqa: BLE001 - json.loads raises the error JSON users know
        return json.loads(text)
    return value if end == len(text) else json.loads(text)


def _sees_runtime(tool: Any) -> bool:
    """Whether a parameter of the function receives the runtime, the context, the state or
    the call id (otherwise no runtime is built for the call)."""
    return bool(
        tool.runtime_params or tool.context_params or tool.state_params or tool.call_id_params
    )


def run_tool(call: ToolCall) -> Any:
    """The tool's own run, through the selected endpoint."""
    if type(call.tool) is FunctionTool:
        # only a ToolRuntime or an injected-state parameter shows the state
        tool = call.tool.tool
        state = call.run.public_state() if tool.runtime_params or tool.state_params else None
        return call.tool.invokable_run(call.ctx, call.arguments, call_id=call.call_id, state=state)
    method = getattr(call.tool, RUN_METHODS[call.kind])
    if call.kind in ENHANCED:
        return method(call.ctx, ToolArgument.trusted(text=call.arguments))
    return method(call.ctx, call.arguments)


def result_content(kind: EndpointKind, result: Any, where: str) -> tuple[ContentBlock, ...]:
    """The blocks of a tool message made from an endpoint's result (streams joined)."""
    if kind in STREAMABLE:
        result = collect(result, where)
        parts = [_content_of(kind, item, where) for item in result]
        return _joined(parts)
    if type(result) is str and kind not in ENHANCED:  # an invokable tool's text: the usual
        return (construct(TextBlock, text=result),)
    return _content_of(kind, result, where)


def _content_of(kind: EndpointKind, value: Any, where: str) -> tuple[ContentBlock, ...]:
    if kind in ENHANCED:
        if not isinstance(value, ToolResult):
            raise UsageError(
                f"hookproof: {where} returned {type(value).__name__}; an enhanced tool endpoint "
                "returns a ToolResult (ToolResult.of_text(...))."
            )
        return value.content
    if not isinstance(value, str):
        raise UsageError(
            f"hookproof: {where} returned {type(value).__name__}; an invokable or streamable "
            "tool endpoint returns str (or an iterator of str)."
        )
    return (construct(TextBlock, text=value),)


def _joined(parts: list[tuple[ContentBlock, ...]]) -> tuple[ContentBlock, ...]:
    blocks: list[ContentBlock] = []
    for part in parts:
        for block in part:
            if blocks and isinstance(block, TextBlock) and isinstance(blocks[-1], TextBlock):
                blocks[-1] = TextBlock(text=blocks[-1].text + block.text)
            else:
                blocks.append(block)
    return tuple(blocks) or (TextBlock(text=""),)


def tool_message(call: ToolCall, content: tuple[ContentBlock, ...], msg_id: str) -> ToolMessage:
    return construct(
        ToolMessage,
        content=content,
        tool_call_id=call.call_id,
        name=call.name,
        additional_kwargs={"_eino_msg_id": msg_id},
    )


def as_stream(kind: EndpointKind, result: Any) -> tuple[Any, ...]:
    """An endpoint result as chunks: a stream's own chunks, or one chunk."""
    return collect(result, "a tool endpoint") if kind in STREAMABLE else (result,)
