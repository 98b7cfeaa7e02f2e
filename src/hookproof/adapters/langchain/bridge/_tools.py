"""LangChain tools as hookproof Tools on the reference runtime, and hookproof tools as LangChain
tools in a LangChain hook's request.

A LangChain tool keeps its own schema (as LangChain shows it to the model) and runs through
its own ``invoke`` with a tool call, with what LangChain's tool node injects: the state
(``InjectedState``), the tool runtime (``ToolRuntime``), the store (``InjectedStore``, from
the run's ``GraphRun``) and the call id, in LangGraph's context for the tool node (so
``get_config()`` and ``interrupt()`` work inside the tool).
"""

from __future__ import annotations

import contextlib
import typing
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any, get_origin

from langchain_core.messages import ToolMessage as LCToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.prebuilt import InjectedState, InjectedStore
from langgraph.prebuilt.tool_node import ToolInvocationError, msg_content_output
from langgraph.prebuilt.tool_node import ToolRuntime as LCToolRuntime
from langgraph.runtime import Runtime as LCRuntime
from pydantic import ValidationError

from hookproof._support.frozen import thaw
from hookproof.adapters.langchain._convert import schema_of_tool
from hookproof.adapters.langchain._tool_memo import ToolMemo
from hookproof.adapters.langchain.bridge._bound import bound_as
from hookproof.adapters.langchain.bridge._channels import joined_result, node_channels
from hookproof.adapters.langchain.bridge._commands import hp_command
from hookproof.adapters.langchain.bridge._graph_run import (
    TOOLS_EXTRA,
    current_graph_run,
    write_to_stream,
)
from hookproof.adapters.langchain.bridge._langgraph_context import (
    TOOLS_NODE,
    langgraph_node,
    run_config,
)
from hookproof.adapters.langchain.bridge._views import (
    hp_message,
    keep,
    kept_original,
    kept_view,
    lc_state,
)
from hookproof.context import ToolRuntime
from hookproof.errors import NeedsGraphError, UsageError, safe_repr
from hookproof.messages import ToolMessage
from hookproof.requests import Command
from hookproof.tools import Tool, ToolSchema

__all__ = [
    "explained",
    "hp_tool",
    "hp_tool_or_schema",
    "lc_tool",
    "lc_tool_runtime",
]

_RUNTIME = "__hookproof_runtime__"
_RUNTIME_NAME = "runtime"


def lc_tool_runtime(state_view: Any, context: Any, call_id: str | None) -> LCToolRuntime[Any, Any]:
    """The ToolRuntime LangChain's tool node gives: the tool node's config (as ``get_config()``
    returns it there), the run's store and stream writer."""
    run = current_graph_run()
    return LCToolRuntime(
        state=state_view,
        context=context,
        config=run_config() or {},  # type: ignore[arg-type]
        stream_writer=write_to_stream,
        tool_call_id=call_id,
        store=None if run is None else run.store,
        tools=[] if run is None else [lc_tool(item) for item in run.extras.get(TOOLS_EXTRA, ())],
    )


_NEEDS_GRAPH = "outside of a runnable context"


@contextlib.contextmanager
def explained(where: str) -> Iterator[None]:
    """LangGraph's interrupt() and get_config() fail outside a graph with a bare
    RuntimeError; say what it means here."""
    try:
        yield
    except RuntimeError as error:
        explanation = needs_graph(error, where)
        if explanation is None:
            raise
        raise explanation from error


def needs_graph(error: BaseException, where: str) -> NeedsGraphError | None:
    """What ``explained`` raises for ``error`` (None: ``error`` itself goes on)."""
    if not isinstance(error, RuntimeError) or isinstance(error, NeedsGraphError):
        return None
    if _NEEDS_GRAPH not in str(error):
        return None
    return NeedsGraphError(
        f"hookproof: {where} called LangGraph's interrupt() or get_config() outside an "
        "agent run: they work in the hooks and tools the reference engine runs (an agent "
        "from hookproof.runtime.create_agent or on_reference_engine), as in a LangGraph "
        "graph, and nowhere else. Call it from a run: agent.invoke(...)."
    )


# -- LangChain tools on the runtime -----------------------------------------------------------


def _injections(tool: BaseTool) -> dict[str, tuple[str, str | None]]:
    """Arguments the model never sees, by name: ("state", key), ("store", None) or
    ("runtime", None). The call id LangChain's own ``invoke`` injects."""
    shown = _fields_of(tool.tool_call_schema)
    found: dict[str, tuple[str, str | None]] = {}
    inputs = _fields_of(tool.get_input_schema())
    if _RUNTIME_NAME in inputs or _RUNTIME_NAME in _function_hints(tool):
        # LangGraph's tool node fills a parameter by this name with the ToolRuntime, whatever
        # its annotation (none: the model is shown it, and LangGraph injects it all the same).
        found[_RUNTIME_NAME] = ("runtime", None)
    for name, info in inputs.items():
        kind = None if name in shown else _injection_kind(info.annotation, info.metadata)
        if kind is not None:
            found.setdefault(name, kind)
    for name, hint in _function_hints(tool).items():  # a schema given apart may omit them
        kind = None if name in shown else _injection_kind(*_split(hint))
        if kind is not None:
            found.setdefault(name, kind)
    return found


def _function_hints(tool: BaseTool) -> dict[str, Any]:
    function = getattr(tool, "func", None) or getattr(tool, "coroutine", None)
    if function is None:
        return {}
    try:
        return typing.get_type_hints(function, include_extras=True)
    except (NameError, TypeError):  # unresolvable annotations: only the schema speaks
        return {}


def _split(hint: Any) -> tuple[Any, list[Any]]:
    metadata = list(getattr(hint, "__metadata__", ()))
    return (hint.__origin__ if metadata else hint), metadata


def _fields_of(schema: object) -> dict[str, Any]:
    """A pydantic schema's fields; none for a tool whose schema is a JSON Schema dict."""
    fields = getattr(schema, "model_fields", None)
    return dict(fields) if isinstance(fields, Mapping) else {}


def _injection_kind(annotation: Any, metadata: list[Any]) -> tuple[str, str | None] | None:
    if annotation is LCToolRuntime or get_origin(annotation) is LCToolRuntime:
        return ("runtime", None)
    for item in metadata:
        if item is InjectedState or isinstance(item, InjectedState):
            return ("state", getattr(item, "field", None))
        if item is InjectedStore or isinstance(item, InjectedStore):
            return ("store", None)
    return None


def _injected_values(
    injections: Mapping[str, tuple[str, str | None]], runtime: ToolRuntime[Any]
) -> dict[str, Any]:
    if not injections:
        return {}
    view = lc_state(runtime.state)
    values: dict[str, Any] = {}
    for name, (kind, key) in injections.items():
        if kind == "state":
            values[name] = view if key is None else view.get(key)
        elif kind == "runtime":
            values[name] = lc_tool_runtime(view, runtime.context, runtime.tool_call_id)
        else:
            run = current_graph_run()
            values[name] = None if run is None else run.store
    return values


_INJECTIONS = ToolMemo(_injections)  # deepagents makes new tools per build


class _LangChainToolRun:
    """Runs one LangChain tool for the runtime: the call as LangChain's tool node makes it."""

    def __init__(self, tool: BaseTool, name: str) -> None:
        self.tool, self.name = tool, name
        self.injections = dict(_INJECTIONS(tool))

    def call(self, kwargs: dict[str, Any], runtime: ToolRuntime[Any]) -> dict[str, Any]:
        args = {**thaw(kwargs), **_injected_values(self.injections, runtime)}
        return {"name": self.name, "args": args, "id": runtime.tool_call_id, "type": "tool_call"}

    def __call__(self, **kwargs: Any) -> Any:
        runtime: ToolRuntime[Any] = kwargs.pop(_RUNTIME)
        try:
            with node_channels(runtime.state) as channels, self.in_tool_node(runtime):
                result = self.result(self.tool.invoke(self.call(kwargs, runtime)))
            return joined_result(result, channels)
        except ValidationError as error:
            return self.invalid(error, kwargs, runtime)

    async def arun(self, **kwargs: Any) -> Any:
        runtime: ToolRuntime[Any] = kwargs.pop(_RUNTIME)
        try:
            with node_channels(runtime.state) as channels, self.in_tool_node(runtime):
                result = self.result(await self.tool.ainvoke(self.call(kwargs, runtime)))
            return joined_result(result, channels)
        except ValidationError as error:
            return self.invalid(error, kwargs, runtime)

    @contextlib.contextmanager
    def in_tool_node(self, runtime: ToolRuntime[Any]) -> Iterator[None]:
        with explained(f"tool {self.name!r}"), langgraph_node(TOOLS_NODE, _node_runtime(runtime)):
            yield

    def result(self, value: Any) -> Any:
        if hasattr(value, "goto") and hasattr(value, "update"):
            return self.named(hp_command(value, f"tool {self.name!r}"))
        if isinstance(value, LCToolMessage):
            # what LangChain's tool node does to a tool's content: a list that is not all
            # content blocks, or any other value, is sent as JSON
            content = msg_content_output(value.content)
            if content is not value.content:
                value = value.model_copy(update={"content": content})
        if hasattr(value, "type") and hasattr(value, "content"):
            return hp_message(value, f"the result of tool {self.name!r}")
        return value

    def named(self, command: Command) -> Command:
        """LangChain's tool node names the ToolMessages of a tool's Command after the tool."""
        messages = (command.update or {}).get("messages")
        if not isinstance(messages, list):
            return command
        named = [
            item.model_copy(update={"name": self.name})
            if isinstance(item, ToolMessage) and item.name is None
            else item
            for item in messages
        ]
        return replace(command, update={**(command.update or {}), "messages": named})

    def invalid(
        self, error: ValidationError, kwargs: dict[str, Any], runtime: ToolRuntime[Any]
    ) -> ToolMessage:
        """The error message LangChain's tool node gives the model for invalid arguments."""
        shown = [e for e in error.errors() if not e["loc"] or e["loc"][0] not in self.injections]
        text = ToolInvocationError(self.name, error, thaw(kwargs), shown).message
        return ToolMessage(
            content=text, tool_call_id=runtime.tool_call_id or "", name=self.name, status="error"
        )


def _node_runtime(runtime: ToolRuntime[Any]) -> LCRuntime[Any]:
    return LCRuntime(context=runtime.context)


def hp_tool(tool: Any, source: str) -> Tool:
    """The hookproof Tool that shows and runs a LangChain tool (made once per tool)."""
    if isinstance(tool, Tool):
        return tool
    known = kept_view(tool)
    if isinstance(known, Tool):
        return known
    if not isinstance(tool, BaseTool):
        raise UsageError(
            f"hookproof: {source} contains {safe_repr(tool, 80)} ({type(tool).__name__}), "
            "which the "
            "reference runtime cannot run: pass LangChain tools (BaseTool, @tool functions) "
            "or hookproof tools."
        )
    schema = bound_as(schema_of_tool(tool), tool)
    run = _LangChainToolRun(tool, schema.name)
    converted = Tool(
        schema=schema,
        func=run,
        coroutine=run.arun,
        runtime_params=(_RUNTIME,),
        return_direct=bool(tool.return_direct),
    )
    keep(tool, converted)
    return converted


_HOOKPROOF_TOOLS = (Tool, ToolSchema)  # a tuple: isinstance reads it without building a union


def hp_tool_or_schema(value: Any) -> Tool | ToolSchema:
    """A tool a LangChain hook put in a request, as the runtime's request holds it."""
    if isinstance(value, _HOOKPROOF_TOOLS):
        return value
    original = kept_original(value)
    if isinstance(original, _HOOKPROOF_TOOLS):
        return original
    if isinstance(value, Mapping):
        return bound_as(schema_of_tool(value), value)
    return hp_tool(value, "request.tools")


# -- hookproof tools in a LangChain hook's request ---------------------------------------------


def lc_tool(item: Tool | ToolSchema) -> Any:
    """What a LangChain hook sees for a tool of the runtime's request."""
    original = kept_original(item)
    if original is not None:
        return original  # the LangChain tool it was made from
    view = kept_view(item)
    if view is None:
        view = keep(item, _lc_view(item))
    return view


def _lc_view(item: Tool | ToolSchema) -> Any:
    schema = item.schema if isinstance(item, Tool) else item
    parameters = thaw(schema.parameters)
    if not isinstance(item, Tool):
        described = {"name": schema.name, "description": schema.description}
        return {"type": "function", "function": {**described, "parameters": parameters}}

    def run(**kwargs: Any) -> Any:
        return item.run(kwargs, ToolRuntime(state={}))

    async def arun(**kwargs: Any) -> Any:
        return await item.arun(kwargs, ToolRuntime(state={}))

    return StructuredTool(
        name=schema.name,
        description=schema.description,
        args_schema=parameters,
        func=run,
        coroutine=arun,
        return_direct=item.return_direct,
    )
