"""What hookproof's LangChain chat models share: tool binding that keeps full schemas, reprs
without secrets, the positional first argument, and LangChain's four ways to call a model
(``_generate``, ``_agenerate``, ``_stream``, ``_astream``), each handed to an answering
method with the call as one ``ModelCall``."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import ToolCallChunk
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict

from hookproof.errors import UsageError
from hookproof.redaction import redact_text

__all__ = ["ABSENT", "ModelCall", "ToolBindingChatModel", "tool_call_chunks", "with_positional"]


class _Absent:
    """The default of a positional argument that was not given (it may come as a keyword)."""

    def __repr__(self) -> str:
        return "<positional or keyword>"


ABSENT: Any = _Absent()


def with_positional(model: str, field: str, value: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Fold the one positional argument into pydantic's keywords, refusing it twice."""
    if value is ABSENT:
        return kwargs
    if field in kwargs:
        raise UsageError(
            f"hookproof: {model} got {field} twice, positionally and as {field}=. "
            f"hookproof cannot tell which one you meant. Pass it once, e.g. "
            f"{model}(value) or {model}({field}=value)."
        )
    return {**kwargs, field: value}


def tool_call_chunks(message: AIMessage) -> list[ToolCallChunk]:
    """The tool calls of a whole answer as the chunks a stream of it carries (arguments as
    JSON text, numbered in order)."""
    return [
        {"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": i}
        for i, c in enumerate(message.tool_calls)
    ]


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One call of a chat model, as LangChain made it."""

    messages: list[BaseMessage]
    stop: list[str] | None
    run_manager: Any
    kwargs: Mapping[str, Any]


class ToolBindingChatModel(BaseChatModel):
    """bind_tools that keeps full schemas, tool_choice and any settings."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    # The repr shows the inner model's fields (default_headers, model_kwargs, a plain
    # api_key): it reaches logs and pytest's failure output, so no secret may show in it.
    def __repr__(self) -> str:
        return redact_text(super().__repr__())

    def __str__(self) -> str:
        return redact_text(super().__str__())

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        formatted = [convert_to_openai_tool(item) for item in tools]
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=formatted, **kwargs)

    # -- LangChain's four ways to call a model, each handed to an answering method ---------

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._answer(ModelCall(messages, stop, run_manager, kwargs))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return await self._aanswer(ModelCall(messages, stop, run_manager, kwargs))

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        return self._answer_stream(ModelCall(messages, stop, run_manager, kwargs))

    def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        return self._aanswer_stream(ModelCall(messages, stop, run_manager, kwargs))

    # -- answering: a subclass gives _answer; the others default to LangChain's ways -------

    def _answer(self, call: ModelCall) -> ChatResult:
        raise NotImplementedError

    async def _aanswer(self, call: ModelCall) -> ChatResult:
        """LangChain's own: ``_generate`` in an executor."""
        return await super()._agenerate(call.messages, call.stop, call.run_manager, **call.kwargs)

    def _answer_stream(self, call: ModelCall) -> Iterator[ChatGenerationChunk]:
        """The whole answer as one chunk."""
        message = self._answer(call).generations[0].message
        calls = tool_call_chunks(message) if isinstance(message, AIMessage) else []
        chunk = AIMessageChunk(content=message.content, tool_call_chunks=calls, id=message.id)
        yield ChatGenerationChunk(message=chunk)

    def _aanswer_stream(self, call: ModelCall) -> AsyncIterator[ChatGenerationChunk]:
        """LangChain's own: ``_stream`` in an executor."""
        return super()._astream(call.messages, call.stop, call.run_manager, **call.kwargs)
