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

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, PrivateAttr

from hookproof._guard import check_model
from hookproof.errors import InvalidInputError
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
from hookproof.tools import ToolSchema

__all__ = ["RecordingChatModel", "ScriptedChatModel", "final_request"]

_ROLES: dict[str, type[Message]] = {
    "system": SystemMessage,
    "human": UserMessage,
    "ai": AssistantMessage,
    "tool": ToolMessage,
}
_NOT_SETTINGS = frozenset({"tools", "tool_choice", "run_manager", "ls_structured_output_format"})


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
        url = data.pop("url", None) or (data.pop("image_url", {}) or {}).get("url")
        return ImageBlock(
            url=url, base64=data.pop("base64", None), id=block_id, cache_control=cache
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
        response_format=kwargs.get("ls_structured_output_format"),
        model_settings=settings,
    )


def _ai_message(reply: AssistantMessage) -> AIMessage:
    calls = [
        {"name": c.name, "args": dict(c.args), "id": c.id, "type": "tool_call"}
        for c in reply.tool_calls
    ]
    return AIMessage(content=reply.text, tool_calls=calls, id=reply.id)


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
        request = final_request(messages, kwargs, model=self.model_name, stop=stop)
        reply = self._scripted.invoke(request)
        return ChatResult(generations=[ChatGeneration(message=_ai_message(reply))])


class RecordingChatModel(_ToolBinding):
    """Wraps a chat model and records the FinalRequest of every call, then forwards it."""

    __test__: ClassVar[bool] = False
    hookproof_offline: ClassVar[bool] = True
    inner: BaseChatModel
    _requests: list[FinalRequest] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "hookproof-recording"

    @property
    def model_name(self) -> str:
        return str(getattr(self.inner, "model_name", None) or type(self.inner).__name__)

    @property
    def requests(self) -> tuple[FinalRequest, ...]:
        return tuple(self._requests)

    @property
    def last(self) -> FinalRequest:
        if not self._requests:
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
        self._requests.append(final_request(messages, kwargs, model=self.model_name, stop=stop))
        return self.inner._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
