"""LangChain chat models for tests: scripted replies, recorded final requests.

``ScriptedChatModel`` is a real ``BaseChatModel``: ``bind_tools`` keeps the full tool schemas,
tool_choice and settings, and every call sees a hookproof ``FinalRequest`` built from exactly
what LangChain passed in. It plays the same turns as ``hookproof.models.ScriptedModel``
(``call(...)``, str, lists of calls, exceptions, a function). ``RecordingChatModel`` wraps any
chat model and records those FinalRequests, so snapshots, diffs and contracts work unchanged
on ``langchain.agents.create_agent`` and deepagents.

Importing this module imports langchain-core (install ``hookproof[langchain]``).
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, ClassVar

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, PrivateAttr

from hookproof._guard import check_model
from hookproof.errors import InvalidInputError, UsageError
from hookproof.messages import (
    AssistantMessage,
    ImageBlock,
    Message,
    ReasoningBlock,
    SystemMessage,
    TextBlock,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from hookproof.models import FinalRequest, ScriptedModel
from hookproof.runtime import Interrupt
from hookproof.tools import ToolSchema

__all__ = ["RecordingChatModel", "ScriptedChatModel", "final_request", "run"]

_ROLES: dict[str, type[Message]] = {
    "system": SystemMessage,
    "human": UserMessage,
    "ai": AssistantMessage,
    "tool": ToolMessage,
}
_NOT_SETTINGS = frozenset(
    {"tools", "tool_choice", "run_manager", "ls_structured_output_format", "response_format"}
)


def _block(raw: Any) -> Any:
    if isinstance(raw, str):
        return TextBlock(text=raw)
    if not isinstance(raw, Mapping):
        return TextBlock(text=str(raw))
    data = dict(raw)
    kind = data.pop("type", None)
    cache = data.pop("cache_control", None)
    block_id = data.pop("id", None)
    if kind == "text":
        return TextBlock(
            text=str(data.pop("text", "")), cache_control=cache, id=block_id, extras=data
        )
    if kind in ("reasoning", "thinking"):
        text = data.pop("reasoning", None) or data.pop("thinking", "")
        return ReasoningBlock(reasoning=str(text), id=block_id, extras=data)
    if kind in ("image", "image_url"):
        image_url = data.pop("image_url", None)
        nested = image_url.get("url") if isinstance(image_url, Mapping) else image_url
        data.pop("source_type", None)
        return ImageBlock(
            url=data.pop("url", None) or nested,
            base64=data.pop("base64", None) or data.pop("data", None),
            mime_type=data.pop("mime_type", None),
            id=block_id,
            cache_control=cache,
            extras=data,
        )
    text = json.dumps(raw, sort_keys=True, default=str)
    return TextBlock(text=text, extras={"kind": str(kind)})


def _message(message: BaseMessage) -> Message:
    cls = _ROLES.get(message.type)
    if cls is None:
        raise InvalidInputError(
            f"hookproof: cannot record a LangChain {type(message).__name__} (type "
            f"{message.type!r}); expected system, human, ai or tool messages."
        )
    content = message.content
    blocks = [
        _block(item) for item in (content if isinstance(content, list) else [content]) if item != ""
    ]
    fields: dict[str, Any] = {
        "content": blocks,
        "id": message.id,
        "name": message.name,
        "additional_kwargs": dict(message.additional_kwargs),
        "response_metadata": dict(message.response_metadata),
    }
    if isinstance(message, AIMessage):
        fields["tool_calls"] = [
            ToolCall(name=c["name"], args=c.get("args", {}), id=c.get("id"))
            for c in message.tool_calls
        ]
        if message.invalid_tool_calls:  # calls the provider could not parse stay visible
            invalid = [dict(call) for call in message.invalid_tool_calls]
            fields["additional_kwargs"] = {
                **fields["additional_kwargs"],
                "invalid_tool_calls": invalid,
            }
    if message.type == "tool":
        fields["tool_call_id"] = str(getattr(message, "tool_call_id", ""))
        fields["status"] = getattr(message, "status", "success")
    return cls(**fields)


def _tool(raw: Any) -> ToolSchema:
    spec = (
        raw
        if isinstance(raw, Mapping) and raw.get("type") == "function"
        else convert_to_openai_tool(raw)
    )
    function = spec["function"]
    return ToolSchema(
        name=function["name"],
        description=function.get("description", ""),
        parameters=function.get("parameters", {"type": "object", "properties": {}}),
    )


def final_request(
    messages: Sequence[BaseMessage], kwargs: Mapping[str, Any], *, model: str, stop: Any = None
) -> FinalRequest:
    """The FinalRequest for one LangChain model call: its messages and bound arguments."""
    converted = [_message(item) for item in messages]
    system = next((m for m in converted if isinstance(m, SystemMessage)), None)
    settings = {k: v for k, v in kwargs.items() if k not in _NOT_SETTINGS}
    if stop:
        settings["stop"] = list(stop)
    return FinalRequest(
        model=model,
        system_message=system,
        messages=tuple(m for m in converted if m is not system),
        tools=tuple(_tool(item) for item in kwargs.get("tools", ()) or ()),
        tool_choice=kwargs.get("tool_choice"),
        response_format=kwargs.get("response_format", kwargs.get("ls_structured_output_format")),
        model_settings=settings,
    )


_PLACEHOLDER = FinalRequest(model="unused")


def _portable(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Bound arguments with the portable tool schemas in place of a provider's own format."""
    portable = {k: v for k, v in kwargs.items() if not k.startswith("_hookproof_")}
    if "_hookproof_tools" in kwargs:
        portable["tools"] = kwargs["_hookproof_tools"]
        portable.pop("tool_choice", None)
        if kwargs.get("_hookproof_tool_choice") is not None:
            portable["tool_choice"] = kwargs["_hookproof_tool_choice"]
    return portable


def _ai_message(reply: AssistantMessage) -> AIMessage:
    calls = [
        {"name": c.name, "args": dict(c.args), "id": c.id, "type": "tool_call"}
        for c in reply.tool_calls
    ]
    return AIMessage(content=reply.text, tool_calls=calls, id=reply.id)


class _Absent:
    """The default of a positional argument that was not given (it may come as a keyword)."""

    def __repr__(self) -> str:
        return "<positional or keyword>"


_ABSENT: Any = _Absent()


def _with_positional(model: str, field: str, value: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Fold the one positional argument into pydantic's keywords, refusing it twice."""
    if value is _ABSENT:
        return kwargs
    if field in kwargs:
        raise UsageError(
            f"hookproof: {model} got {field} twice, positionally and as {field}=. "
            f"hookproof cannot tell which one you meant. Pass it once, e.g. "
            f"{model}(value) or {model}({field}=value)."
        )
    return {**kwargs, field: value}


class _ToolBinding(BaseChatModel):
    """bind_tools that keeps full schemas, tool_choice and any settings."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        formatted = [convert_to_openai_tool(item) for item in tools]
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=formatted, **kwargs)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        message = self._generate(messages, stop, run_manager, **kwargs).generations[0].message
        chunk = AIMessageChunk(
            content=message.content,
            tool_call_chunks=[
                {"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": i}
                for i, c in enumerate(getattr(message, "tool_calls", []))
            ],
            id=message.id,
        )
        yield ChatGenerationChunk(message=chunk)


class ScriptedChatModel(_ToolBinding):
    """A LangChain chat model that plays a hookproof script (turns or a function)."""

    __test__: ClassVar[bool] = False
    hookproof_offline: ClassVar[bool] = True
    script: Any
    model_name: str = "scripted"
    provider: str | None = None
    _scripted: ScriptedModel | None = PrivateAttr(default=None)

    def __init__(self, script: Any = _ABSENT, /, **kwargs: Any) -> None:
        """``ScriptedChatModel([...])`` or ``ScriptedChatModel(script=[...])``, like
        ``ScriptedModel(turns)``; the other fields are keywords."""
        super().__init__(**_with_positional(type(self).__name__, "script", script, kwargs))

    @property
    def _llm_type(self) -> str:
        return "hookproof-scripted"

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        params = super()._get_ls_params(stop=stop, **kwargs)
        params["ls_provider"] = self.provider or "hookproof"
        params["ls_model_name"] = self.model_name
        return params

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self._scripted is None:
            script = self.script if callable(self.script) else list(self.script)
            self._scripted = ScriptedModel(script, name=self.model_name)
        # A list script needs the request only to explain running out; build it only then.
        needs_request = callable(self.script) or self._scripted.remaining == 0
        request = (
            final_request(messages, kwargs, model=self.model_name, stop=stop)
            if needs_request
            else _PLACEHOLDER
        )
        reply = self._scripted.invoke(request)
        return ChatResult(generations=[ChatGeneration(message=_ai_message(reply))])


class RecordingChatModel(_ToolBinding):
    """Wraps a chat model and records the FinalRequest of every call, then forwards it."""

    __test__: ClassVar[bool] = False
    hookproof_offline: ClassVar[bool] = True
    inner: BaseChatModel
    # Calls are kept raw and converted on first read, so recording costs almost nothing.
    _raw: list[tuple[list[BaseMessage], dict[str, Any], Any]] = PrivateAttr(default_factory=list)
    _requests: list[FinalRequest] = PrivateAttr(default_factory=list)

    def __init__(self, inner: Any = _ABSENT, /, **kwargs: Any) -> None:
        """``RecordingChatModel(model)`` or ``RecordingChatModel(inner=model)``, like
        ``RecordingModel(inner)``."""
        super().__init__(**_with_positional(type(self).__name__, "inner", inner, kwargs))

    @property
    def _llm_type(self) -> str:
        return "hookproof-recording"

    @property
    def model_name(self) -> str:
        inner = self.inner
        name = getattr(inner, "model_name", None) or getattr(inner, "model", None)
        return str(name or type(inner).__name__)

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        """Let the inner model format the tools its own way (a provider needs its format);
        keep the portable schemas aside for the recorded FinalRequest."""
        formatted = [convert_to_openai_tool(item) for item in tools]
        choice = {"tool_choice": tool_choice} if tool_choice is not None else {}
        try:
            bound = self.inner.bind_tools(tools, **choice, **kwargs)
            native = dict(getattr(bound, "kwargs", {}) or {})
        except NotImplementedError:
            native = {"tools": formatted, **choice, **kwargs}
        return self.bind(_hookproof_tools=formatted, _hookproof_tool_choice=tool_choice, **native)

    def _converted(self) -> list[FinalRequest]:
        for messages, kwargs, stop in self._raw[len(self._requests) :]:
            self._requests.append(final_request(messages, kwargs, model=self.model_name, stop=stop))
        return self._requests

    @property
    def requests(self) -> tuple[FinalRequest, ...]:
        return tuple(self._converted())

    @property
    def last(self) -> FinalRequest:
        if not self._converted():
            raise InvalidInputError(
                f"hookproof: RecordingChatModel {self.model_name!r} has recorded no request yet. "
                "Run the agent first; if you did, it used another model."
            )
        return self._requests[-1]

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        return self.inner._get_ls_params(stop=stop, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        check_model(self.inner)
        forward = {k: v for k, v in kwargs.items() if not k.startswith("_hookproof_")}
        self._raw.append((list(messages), _portable(kwargs), stop))
        return self.inner._generate(messages, stop=stop, run_manager=run_manager, **forward)


# -- contracts on LangChain agents and middleware -------------------------------------------


def is_langchain_object(value: object) -> bool:
    """True for LangChain / LangGraph agents and middleware (checked by their module)."""
    return any(
        getattr(cls, "__module__", "").startswith(("langchain", "langgraph"))
        for cls in type(value).__mro__
    )


def models_for(tiers: Sequence[str], script: Any) -> dict[str, RecordingChatModel]:
    turns = script if script is not None else ["done"]
    return {
        tier: RecordingChatModel(
            inner=ScriptedChatModel(
                script=turns if callable(turns) else list(turns), model_name=tier
            )
        )
        for tier in tiers
    }


def run_agent(
    agent: Any,
    models: Mapping[str, RecordingChatModel],
    context: Any,
    input: Mapping[str, Any],
    probe: Any = None,
    on_interrupt: Any = "approve",
    config: Mapping[str, Any] | None = None,
) -> Any:
    """Run a LangChain / deepagents graph and report it as a contracts TargetRun. A run that
    pauses at an interrupt is resumed with ``on_interrupt``'s answer (the graph gets a
    checkpointer of its own when it has none, so it can be resumed). ``config`` is merged
    into the run's config (its callbacks kept; a fresh thread unless it names one)."""
    from hookproof.contracts._interrupts import resume_loop
    from hookproof.contracts._target import TargetRun

    def requests() -> tuple[FinalRequest, ...]:
        return tuple(r for m in models.values() for r in m.requests)

    def called() -> tuple[str, ...]:
        return tuple(name for name, model in models.items() if model.requests)

    tracer = TraceHandler(probe)
    token = _TRACER.set(tracer)
    parts: list[Any] = []
    try:
        paused = resume_loop(
            *_graph_steps(agent, context, input, tracer, on_interrupt, config), on_interrupt, parts
        )
    except Exception as error:  # noqa: BLE001 - a crash is an observation the check judges
        return TargetRun(
            final_requests=requests(),
            called=called(),
            error=error,
            trace=tracer.trace(),
            interrupts_resumed=len(parts),
        )
    finally:
        _TRACER.reset(token)
    messages = tuple(_message(m) for m in parts[-1].get("messages", ()))
    own = tuple(tracer.requests) if probe is not None else requests()  # runs share models
    return TargetRun(
        messages=messages,
        final_requests=own,
        called=() if probe is not None else called(),
        trace=tracer.trace(),
        interrupts_resumed=len(parts) - 1,
        paused=paused,
    )


def run(
    agent: Any,
    input: Any,
    *,
    context: Any = None,
    config: Mapping[str, Any] | None = None,
) -> Any:
    """Invoke a compiled LangChain or deepagents agent once and return hookproof's
    ``RunResult``: ``.messages`` (hookproof messages), ``.state`` (the graph's output, frozen),
    ``.trace`` (node hooks, model calls and tool calls, from LangChain's callbacks),
    ``.final_requests`` (what each model call received, whatever the chat model) and
    ``.text``; ``.interrupts`` when the run paused. ``input`` is what ``agent.invoke`` takes
    (a dict with "messages", or a LangGraph ``Command(resume=...)``); ``config`` is merged into
    the run config (its callbacks kept; a fresh thread id unless it names one)."""
    from hookproof._frozen import FrozenDict, freeze
    from hookproof.runtime import RunResult

    if not callable(getattr(agent, "invoke", None)):
        raise UsageError(
            f"hookproof: run() takes a compiled LangChain or deepagents agent (something with "
            f"invoke()), got {type(agent).__name__}. Build it with create_agent(...) or "
            "create_deep_agent(...)."
        )
    tracer = TraceHandler()
    merged = run_config(config, tracer)
    token = _TRACER.set(tracer)
    try:
        output = agent.invoke(input, context=context, config=merged)
    finally:
        _TRACER.reset(token)
    values = dict(output) if isinstance(output, Mapping) else {"output": output}
    pending = values.pop("__interrupt__", None) or ()
    messages = tuple(_message(item) for item in values.get("messages", ()))
    return RunResult(
        messages=messages,
        state=FrozenDict(freeze({**values, "messages": list(messages)})),
        trace=tracer.recorder,
        final_requests=tuple(tracer.requests),
        interrupts=tuple(Interrupt(value=item.value, source="langgraph") for item in pending),
        thread_id=merged["configurable"]["thread_id"],
    )


def run_config(config: Mapping[str, Any] | None, tracer: TraceHandler) -> dict[str, Any]:
    """The user's run config with hookproof's tracer added to its callbacks and a thread id
    (the one it names, else a fresh one)."""
    from hookproof.contracts._interrupts import thread_id

    merged = dict(config or {})
    callbacks = merged.get("callbacks")
    if callbacks is not None and not isinstance(callbacks, list | tuple):
        callbacks.add_handler(tracer.handler(), inherit=True)  # a callback manager
    else:
        merged["callbacks"] = [*(callbacks or ()), tracer.handler()]
    configurable = dict(merged.get("configurable") or {})
    configurable["thread_id"] = thread_id(config)
    merged["configurable"] = configurable
    return merged


def _graph_steps(
    agent: Any,
    context: Any,
    input: Mapping[str, Any],
    tracer: TraceHandler,
    on_interrupt: Any,
    user_config: Mapping[str, Any] | None,
) -> tuple[Any, Any, Any]:
    """The first invoke, the resume step and the pending-interrupt reader of one run."""
    from langgraph.types import Command

    from hookproof.contracts._interrupts import resume_value

    graph = _with_checkpointer(agent)
    config = run_config(user_config, tracer)

    def step(last: Any) -> Any:
        pending = _interrupts(last)
        answers = {item.id: resume_value(item.value, on_interrupt) for item in pending}
        answer = next(iter(answers.values())) if len(answers) == 1 else answers
        return graph.invoke(Command(resume=answer), context=context, config=config)

    def values(last: Any) -> list[Any]:
        return [item.value for item in _interrupts(last)]

    return (lambda: graph.invoke(dict(input), context=context, config=config)), step, values


def _interrupts(result: Any) -> list[Any]:
    return list(result.get("__interrupt__", ()) or ()) if isinstance(result, Mapping) else []


def _with_checkpointer(agent: Any) -> Any:
    """The graph with an in-memory checkpointer when it has none (a graph without one cannot
    be resumed after an interrupt); other runnables are used as they are."""
    if getattr(agent, "checkpointer", True) is not None or not callable(
        getattr(agent, "copy", None)
    ):
        return agent
    from langgraph.checkpoint.memory import InMemorySaver

    return agent.copy(update={"checkpointer": InMemorySaver()})


def _sample_tools() -> list[Any]:
    from langchain_core.tools import tool

    @tool
    def sample_search(query: str, limit: int = 5) -> str:
        """Search the sample knowledge base."""
        return f"results for {query}"

    @tool
    def sample_export(customer_id: str) -> str:
        """Export a sample report."""
        return f"report {customer_id}"

    return [sample_search, sample_export]


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
        id="system-1",
        name="base-prompt",
        additional_kwargs={"tenant": "t-1", "tags": ["a", "b"]},
        response_metadata={"revision": 7},
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
            id="u1",
            name="customer",
            additional_kwargs={"channel": "web"},
        ),
        LCAIMessage(
            content="",
            tool_calls=[{"name": "sample_search", "args": {"query": "refund"}, "id": "c1"}],
            id="a1",
            response_metadata={"model": "sample-model", "finish_reason": "tool_calls"},
        ),
        LCToolMessage(
            content="results for refund",
            tool_call_id="c1",
            name="sample_search",
            id="t1",
            additional_kwargs={"source": "kb"},
        ),
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
    from hookproof.contracts._middleware_checks import node_call

    return node_call(_own(middleware, hook), _own(middleware, f"a{hook}"))


def _converted(messages: Sequence[Any]) -> list[Message]:
    return [_message(item) for item in messages if getattr(item, "type", None) != "remove"]


def _replaces_all(messages: Sequence[Any]) -> bool:
    from langgraph.graph.message import REMOVE_ALL_MESSAGES

    return any(
        getattr(item, "type", None) == "remove" and item.id == REMOVE_ALL_MESSAGES
        for item in messages
    )


def node_samples(samples: Any, context: Any = None) -> Any:
    """What contracts run LangChain node hooks on (``samples`` is their record type)."""
    return samples(
        hook=node_hook,
        state=sample_state,
        runtime=lambda: _sample_runtime(context),
        messages=_converted,
        replaces_all=_replaces_all,
    )


def sample_tool_call_request(context: Any = None) -> Any:
    """A LangChain ToolCallRequest for one sample_search call, its runtime carrying
    ``context``."""
    from langchain.tools import ToolRuntime as LCToolRuntime
    from langgraph.prebuilt.tool_node import ToolCallRequest as LCToolCallRequest

    search = _sample_tools()[0]
    call_spec = {
        "name": "sample_search",
        "args": {"query": "refund"},
        "id": "c9",
        "type": "tool_call",
    }
    state: dict[str, Any] = {"messages": []}
    runtime = LCToolRuntime(
        state=state,
        context=context,
        config={},
        stream_writer=lambda _chunk: None,
        tool_call_id="c9",
        store=None,
    )
    return LCToolCallRequest(tool_call=call_spec, tool=search, state=state, runtime=runtime)  # type: ignore[arg-type]


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
    from hookproof.contracts._middleware_checks import sync_call

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


def metadata_findings(
    middleware: object, system_message: Any = None, context: Any = None
) -> list[str] | None:
    """Run wrap_model_call on a LangChain request; report lost metadata or blocks of the
    system message and the messages it passes on (None: it never called its handler)."""
    from hookproof.contracts._metadata import message_losses, system_losses

    method = overridden(middleware, "wrap_model_call")
    if method is None:
        return []
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
    system = None if after.system_message is None else _message(after.system_message)
    return system_losses(_message(original), system) + message_losses(  # type: ignore[arg-type]
        before, _converted(after.messages)
    )


def graph_tool_schemas(agent: Any) -> dict[str, Any]:
    """Parameter schemas of the tools a LangChain agent graph can execute (best effort)."""
    node = getattr(agent, "nodes", {}).get("tools")
    tool_node = getattr(node, "bound", None)
    tools = getattr(tool_node, "tools_by_name", {}) or {}
    return {
        name: convert_to_openai_tool(item)["function"].get("parameters", {})
        for name, item in tools.items()
    }


class LangChainTarget:
    """Runs a factory whose agents are LangChain ``create_agent`` or deepagents graphs."""

    def __init__(self, build: Any, *, tiers: Sequence[str] | None = None) -> None:
        self.build = build
        self.tiers = tuple(tiers) if tiers else None

    def models(self, script: Any = None) -> dict[str, RecordingChatModel]:
        return models_for(self.tiers or ("model",), script)

    def agent(self, models: Mapping[str, Any]) -> Any:
        return build_instrumented(self.build, dict(models) if self.tiers else models["model"])

    def tool_schemas(self) -> Mapping[str, Mapping[str, Any]]:
        return graph_tool_schemas(self.agent(self.models()))

    def tool_objects(self) -> Mapping[str, list[Any]]:
        """The tools the agent's tool node can execute, by name."""
        node = getattr(self.agent(self.models()), "nodes", {}).get("tools")
        tools = getattr(getattr(node, "bound", None), "tools_by_name", {}) or {}
        return {name: [item] for name, item in tools.items()}

    def registered_tool_names(self) -> list[list[str]]:
        """The tool names each agent the factory builds registers, duplicates kept (LangChain
        keeps the last tool of a name without a word)."""
        lists: list[list[str]] = []
        build_instrumented(
            self.build, self.models() if self.tiers else self.models()["model"], lists
        )
        return lists

    def run(
        self,
        *,
        context: Any = None,
        script: Any = None,
        input: Mapping[str, Any] | None = None,
        models: Mapping[str, Any] | None = None,
        on_interrupt: Any = "approve",
        config: Mapping[str, Any] | None = None,
    ) -> Any:
        from hookproof.contracts._interrupts import check_on_interrupt
        from hookproof.contracts._target import DEFAULT_INPUT

        answer = check_on_interrupt(on_interrupt)

        chosen = dict(models) if models is not None else self.models(script)
        if any(not isinstance(m, RecordingChatModel) for m in chosen.values()):
            chosen = {
                name: RecordingChatModel(inner=ScriptedChatModel(script=["done"], model_name=name))
                for name in chosen
            }
        agent = self.agent(chosen)
        payload = input or DEFAULT_INPUT
        return run_agent(agent, chosen, context, payload, on_interrupt=answer, config=config)


class FalsyRecordingChatModel(RecordingChatModel):
    """A valid model whose truth value is False (for check_injected_model_used)."""

    def __bool__(self) -> bool:
        return False


_NODE_HOOKS = ("before_agent", "before_model", "after_model", "after_agent")


class TraceHandler:
    """A LangChain callback handler that records node hooks, model calls and tool calls as
    a hookproof Trace. Wrap hooks run inside LangChain's model node and leave no callbacks, so
    they are not in this trace (hook order is checked for node hooks only)."""

    def __init__(self, probe: Any = None) -> None:
        from hookproof.trace import TraceRecorder

        self.recorder = TraceRecorder()
        self.probe = probe  # check_isolation holds runs here, at node boundaries
        self.requests: list[FinalRequest] = []
        self.open: dict[Any, tuple[str, str, str | None, Any]] = {}

    def handler(self) -> Any:
        from langchain_core.callbacks import BaseCallbackHandler

        outer = self

        class _Handler(BaseCallbackHandler):
            def on_chain_start(
                self, serialized: Any, inputs: Any, *, run_id: Any, **kw: Any
            ) -> None:
                outer.started(str(kw.get("name") or ""), run_id)

            def on_chain_end(self, outputs: Any, *, run_id: Any, **kw: Any) -> None:
                outer.ended(run_id, "exit")

            def on_chain_error(self, error: BaseException, *, run_id: Any, **kw: Any) -> None:
                outer.ended(run_id, "error")

            def on_chat_model_start(
                self, serialized: Any, messages: Any, *, run_id: Any, **kw: Any
            ) -> None:
                outer.model_called(messages[0] if messages else [], kw)
                name = (kw.get("metadata") or {}).get("ls_model_name") or "model"
                outer.enter(run_id, "model", "model", None, {"model": str(name)})

            def on_llm_end(self, response: Any, *, run_id: Any, **kw: Any) -> None:
                outer.ended(run_id, "exit")

            def on_llm_error(self, error: BaseException, *, run_id: Any, **kw: Any) -> None:
                outer.ended(run_id, "error")

            def on_tool_start(
                self, serialized: Any, input_str: str, *, run_id: Any, **kw: Any
            ) -> None:
                name = (serialized or {}).get("name") or kw.get("name") or "tool"
                outer.enter(run_id, "tool", "tool", None, {"tool": str(name)})

            def on_tool_end(self, output: Any, *, run_id: Any, **kw: Any) -> None:
                outer.ended(run_id, "exit")

            def on_tool_error(self, error: BaseException, *, run_id: Any, **kw: Any) -> None:
                outer.ended(run_id, "error")

        return _Handler()

    def started(self, name: str, run_id: Any) -> None:
        owner, _, hook = name.rpartition(".")
        if self.probe is not None and ((hook in _NODE_HOOKS and owner) or name == "model"):
            self.probe.reached(name)
        if hook in _NODE_HOOKS and owner:
            self.enter(run_id, "hook", hook, owner, None)

    def model_called(self, messages: Sequence[BaseMessage], details: Mapping[str, Any]) -> None:
        """This run's own FinalRequest (a shared model's records mix concurrent runs)."""
        params = _portable(details.get("invocation_params") or {})
        name = (details.get("metadata") or {}).get("ls_model_name") or params.get("_type", "model")
        stop = params.pop("stop", None)
        params.pop("_type", None)
        self.requests.append(final_request(messages, params, model=str(name), stop=stop))

    def enter(self, run_id: Any, kind: str, hook: str, owner: str | None, data: Any) -> None:
        self.recorder.record(kind, hook, "enter", owner, data)  # type: ignore[arg-type]
        self.open[run_id] = (kind, hook, owner, data)

    def ended(self, run_id: Any, phase: str) -> None:
        opened = self.open.pop(run_id, None)
        if opened is not None:
            kind, hook, owner, data = opened
            self.recorder.record(kind, hook, phase, owner, data)  # type: ignore[arg-type]

    def trace(self) -> Any:
        return self.recorder.freeze()


# -- wrap-hook tracing: LangChain composes wrap hooks at build time, leaving no callbacks ---

_TRACER: ContextVar[Any] = ContextVar("hookproof_langchain_tracer", default=None)  # per run


def _owner_name(handler: Any) -> str | None:
    bound = getattr(handler, "__wrapped__", handler)
    owner = getattr(bound, "__self__", None)
    if owner is None:
        return None
    return str(getattr(owner, "name", None) or type(owner).__name__)


def _traced(handler: Any, hook: str) -> Any:
    """The same wrap hook, recording its enter and exit in the run's trace."""
    name = _owner_name(handler)
    if name is None:  # not a middleware's bound hook: leave it exactly as it is
        return handler

    def traced(request: Any, inner: Any) -> Any:
        tracer = _TRACER.get()
        if tracer is None:
            return handler(request, inner)
        if tracer.probe is not None:
            tracer.probe.reached(f"{name}.{hook}")
        tracer.recorder.record("layer", hook, "enter", name)
        try:
            result = handler(request, inner)
        except BaseException:
            tracer.recorder.record("layer", hook, "error", name)
            raise
        tracer.recorder.record("layer", hook, "exit", name)
        return result

    return traced


def _instrumented(compose: Any, hook: str) -> Any:
    def compose_traced(handlers: Sequence[Any]) -> Any:
        return compose([_traced(handler, hook) for handler in handlers])

    return compose_traced


_PATCH_LOCK = threading.Lock()  # one build at a time touches the factory's module globals


def build_instrumented(build: Any, argument: Any, tool_lists: list[list[str]] | None = None) -> Any:
    """Call the user's factory with LangChain's wrap-hook composition instrumented, so runs of
    the agent it builds record their wrap layers; with ``tool_lists``, the names of the
    tools each agent it builds registers (before LangChain keeps one per name) are appended
    there. Behaviour is unchanged; on a LangChain version without these internals, the agent
    is built as is (node hooks are still traced)."""
    from unittest import mock

    try:
        from langchain.agents import factory
    except ImportError:
        return build(argument)
    patches = [
        (name, hook)
        for name, hook in (
            ("_chain_model_call_handlers", "wrap_model_call"),
            ("_chain_tool_call_wrappers", "wrap_tool_call"),
        )
        if callable(getattr(factory, name, None))
    ]
    with _PATCH_LOCK, contextlib.ExitStack() as stack:
        for name, hook in patches:
            stack.enter_context(
                mock.patch.object(factory, name, _instrumented(getattr(factory, name), hook))
            )
        tool_node = getattr(factory, "ToolNode", None)  # LangChain's internal, where present
        if tool_lists is not None and isinstance(tool_node, type):
            recording = _recording_tool_node(tool_node, tool_lists)
            stack.enter_context(mock.patch.object(factory, "ToolNode", recording))
        return build(argument)


def _recording_tool_node(tool_node: type, tool_lists: list[list[str]]) -> Any:
    def recorded(*args: Any, **kwargs: Any) -> Any:
        tools = kwargs.get("tools", args[0] if args else ())
        tool_lists.append([str(getattr(item, "name", item)) for item in tools])
        return tool_node(*args, **kwargs)

    return recorded
