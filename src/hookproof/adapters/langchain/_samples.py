"""LangChain's hook sampler: sample LangChain requests and states, and the middleware's own
hooks as plain calls, which the middleware checks run a LangChain middleware's hooks on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage

from hookproof.adapters.langchain._convert import to_message
from hookproof.adapters.langchain.models import ScriptedChatModel
from hookproof.errors import UsageError
from hookproof.messages import Message
from hookproof.targets.sampler import HookSampler, NodeSamples, PassedOn, node_call, sync_call
from hookproof.targets.samples import sample_metadata, sample_tool_functions

__all__ = [
    "LANGCHAIN_SAMPLER",
    "model_reply",
    "mutation_findings",
    "node_hook",
    "node_samples",
    "overridden",
    "passed_on",
    "sample_messages",
    "sample_model_request",
    "sample_state",
    "sample_system_message",
    "sample_tool_call_request",
]


def _sample_tools() -> list[Any]:
    from langchain_core.tools import tool

    return [tool(function) for function in sample_tool_functions()]


def sample_system_message() -> Any:
    from langchain_core.messages import SystemMessage as LCSystemMessage

    return LCSystemMessage(
        content=[
            {
                "type": "text",
                "text": "You are a careful assistant.",
                "cache_control": {"type": "ephemeral"},
            },
            {"type": "text", "text": "Cite your sources."},
        ],
        **sample_metadata("system"),
    )


def sample_messages() -> list[Any]:
    """LangChain messages of every role with the metadata a careless rebuild loses."""
    from langchain_core.messages import AIMessage as LCAIMessage
    from langchain_core.messages import HumanMessage
    from langchain_core.messages import ToolMessage as LCToolMessage

    return [
        HumanMessage(
            content=[
                {
                    "type": "text",
                    "text": "Find the refund policy.",
                    "cache_control": {"type": "ephemeral"},
                },
                {"type": "text", "text": "My card ends in 4242.", "id": "u1-b1"},
            ],
            **sample_metadata("user"),
        ),
        LCAIMessage(
            content="",
            tool_calls=[{"name": "sample_search", "args": {"query": "refund"}, "id": "c1"}],
            **sample_metadata("assistant"),
        ),
        LCToolMessage(**sample_metadata("tool")),
    ]


def sample_model_request(system_message: Any = None, context: Any = None) -> Any:
    """A rich LangChain ModelRequest (whose override is shallow: in-place changes leak)."""
    from langchain.agents.middleware.types import ModelRequest as LCModelRequest

    messages = sample_messages()
    return LCModelRequest(
        model=ScriptedChatModel(script=["ok"]),
        messages=messages,
        system_message=system_message if system_message is not None else sample_system_message(),
        tool_choice="auto",
        tools=_sample_tools(),
        state={"messages": list(messages), "notes": {"k": [1, 2]}},  # type: ignore[arg-type]
        runtime=_sample_runtime(context),
        model_settings={"temperature": 0.2, "stop": ["END"]},
    )


def sample_state() -> dict[str, Any]:
    """The state a LangChain node hook receives (plain, mutable: changes would leak)."""
    return {"messages": sample_messages(), "notes": {"k": [1, 2]}}


def _sample_runtime(context: Any = None) -> Any:
    from langgraph.runtime import Runtime

    return Runtime(context=context)


def node_hook(middleware: object, hook: str) -> Any:
    """The middleware's own node hook as a plain ``(state, runtime)`` call, or None."""
    return node_call(_own(middleware, hook), _own(middleware, f"a{hook}"))


def _converted(messages: Sequence[Any]) -> list[Message]:
    return [to_message(item) for item in messages if getattr(item, "type", None) != "remove"]


def _replaces_all(messages: Sequence[Any]) -> bool:
    from langgraph.graph.message import REMOVE_ALL_MESSAGES

    return any(
        getattr(item, "type", None) == "remove" and item.id == REMOVE_ALL_MESSAGES
        for item in messages
    )


def node_samples(context: Any = None) -> NodeSamples:
    """What contracts run LangChain node hooks on."""
    return NodeSamples(
        hook=node_hook,
        state=sample_state,
        runtime=lambda: _sample_runtime(context),
        messages=_converted,
        replaces_all=_replaces_all,
    )


def sample_tool_call_request(
    context: Any = None, tool: Any = None, args: Mapping[str, Any] | None = None
) -> Any:
    """A LangChain ToolCallRequest for one call, its runtime carrying ``context``: by default
    of sample_search; else of ``tool`` (a LangChain tool, or a name for a stand-in tool of
    that name) with ``args`` (none by default)."""
    from langchain.tools import ToolRuntime as LCToolRuntime
    from langgraph.prebuilt.tool_node import ToolCallRequest as LCToolCallRequest

    chosen = _sample_tools()[0] if tool is None else _as_langchain_tool(tool)
    given = {"query": "refund"} if tool is None else dict(args or {})
    call_spec = {"name": chosen.name, "args": given, "id": "c9", "type": "tool_call"}
    state: dict[str, Any] = {"messages": []}
    runtime = LCToolRuntime(
        state=state,
        context=context,
        config={},
        stream_writer=lambda _chunk: None,
        tool_call_id="c9",
        store=None,
    )
    return LCToolCallRequest(tool_call=call_spec, tool=chosen, state=state, runtime=runtime)  # type: ignore[arg-type]


def _as_langchain_tool(value: Any) -> Any:
    """A LangChain tool, or a stand-in tool named ``value`` (its function is never run)."""
    from langchain_core.tools import BaseTool, StructuredTool

    if isinstance(value, BaseTool):
        return value
    if isinstance(value, str):
        return StructuredTool.from_function(
            func=lambda: "", name=value, description=f"Stand-in for {value}."
        )
    raise UsageError(
        f"hookproof: tool= takes a LangChain tool (a BaseTool, as @tool makes) or a tool name "
        f"for LangChain middleware, got {type(value).__name__} {value!r}. Pass the tool object "
        "your agent registers, or its name."
    )


def model_reply(_request: Any) -> Any:
    from langchain.agents.middleware.types import ModelResponse as LCModelResponse

    return LCModelResponse(result=[AIMessage(content="ok")])


_FIELDS = ("messages", "system_message", "tool_choice", "tools", "state", "model_settings")


def _own(middleware: object, name: str) -> Any:
    """The middleware's own method ``name``, or None when it only inherits LangChain's."""
    from langchain.agents.middleware import AgentMiddleware as LCAgentMiddleware

    method = getattr(type(middleware), name, None)
    if method is None or method is getattr(LCAgentMiddleware, name, None):
        return None
    return getattr(middleware, name)


def overridden(middleware: object, hook: str) -> Any:
    """The middleware's own wrap hook as a plain call (an async-only hook runs on its own
    loop), or None when it only inherits LangChain's default."""
    sync, async_ = _own(middleware, hook), _own(middleware, f"a{hook}")
    if sync is not None or async_ is None:
        return sync
    return sync_call(async_)


def _tool_reply(request: Any) -> Any:
    from langchain_core.messages import ToolMessage as LCToolMessage

    return LCToolMessage(content="ok", tool_call_id=request.tool_call["id"])


def _in_place_changes(
    hook: str, method: Any, sample: Any, reply: Any, fields: Sequence[str]
) -> list[str]:
    import copy
    import warnings

    before = {name: copy.deepcopy(getattr(sample, name, None)) for name in fields}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            method(sample, reply)
        except Warning as warning:
            return [f"{hook} assigned to the request in place ({warning})"]
    return [
        f"{hook} changed request.{name} in place (LangChain's override is shallow, "
        "so the original request and every other layer see the change)"
        for name in fields
        if before[name] != getattr(sample, name, None)
    ]


def mutation_findings(middleware: object, request: Any = None, context: Any = None) -> list[str]:
    """Run the wrap hooks on rich LangChain requests; report any in-place change."""
    found: list[str] = []
    model_hook = overridden(middleware, "wrap_model_call")
    if model_hook is not None:
        sample = request if request is not None else sample_model_request(context=context)
        found += _in_place_changes("wrap_model_call", model_hook, sample, model_reply, _FIELDS)
    tool_hook = overridden(middleware, "wrap_tool_call")
    if tool_hook is not None:
        tool_fields = ("tool_call", "state")
        found += _in_place_changes(
            "wrap_tool_call", tool_hook, sample_tool_call_request(context), _tool_reply, tool_fields
        )
    return found


def passed_on(
    middleware: object, system_message: Any = None, context: Any = None
) -> PassedOn | None:
    """Run wrap_model_call on a LangChain request; what it received and passed on, as
    hookproof messages (None: it never called its handler)."""
    method = overridden(middleware, "wrap_model_call")
    original = system_message if system_message is not None else sample_system_message()
    request = sample_model_request(system_message=original, context=context)
    before = _converted(request.messages)
    seen: list[Any] = []

    def handler(passed: Any) -> Any:
        seen.append(passed)
        return model_reply(passed)

    method(request, handler)
    if not seen:
        return None
    after = seen[-1]
    system = None if after.system_message is None else to_message(after.system_message)
    return PassedOn(to_message(original), system, before, _converted(after.messages))  # type: ignore[arg-type]


LANGCHAIN_SAMPLER = HookSampler(
    wrap_hook=overridden,
    node_samples=node_samples,
    sample_model_request=sample_model_request,
    sample_tool_request=sample_tool_call_request,
    passed_on=passed_on,
    mutation_findings=mutation_findings,
)
