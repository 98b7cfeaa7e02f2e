"""A LangChain chat model behind a cassette (imported only when one is wrapped)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from typing import Any, ClassVar

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models.chat_models import generate_from_stream
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    message_to_dict,
    messages_from_dict,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field

from hookproof._guard import allow_model
from hookproof.adapters.langchain import RecordingChatModel, final_request
from hookproof.recording._cassette import Cassette
from hookproof.vocabulary import FinalRequest

__all__ = ["LANGCHAIN", "CassetteChatModel"]

LANGCHAIN = "langchain"


class CassetteChatModel(RecordingChatModel):
    """A LangChain chat model behind a cassette: invoke, ainvoke, stream and astream replay
    the recorded answer to their request, or call the inner model's own ``_generate`` /
    ``_agenerate`` / ``_stream`` / ``_astream`` and record it (only while the cassette
    records). Requests are also kept, as RecordingChatModel keeps them."""

    __test__: ClassVar[bool] = False
    hookproof_offline: ClassVar[bool] = True
    cassette: Cassette = Field(exclude=True, repr=False)

    @property
    def _llm_type(self) -> str:
        return "hookproof-cassette"

    def _request(
        self, messages: list[BaseMessage], kwargs: Mapping[str, Any], stop: Any
    ) -> FinalRequest:
        params = self._record(messages, kwargs, stop)
        return final_request(messages, params, model=self.model_name, stop=stop)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        def call() -> ChatResult:
            with _allowed(self.inner):  # the cassette records: its inner model may run
                return self._inner_generate(messages, stop, run_manager, kwargs)

        request = self._request(messages, kwargs, stop)
        return self.cassette.play_or_record(request, LANGCHAIN, call, _dump_result, _load_result)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        async def call() -> ChatResult:
            with _allowed(self.inner):
                return await self._inner_agenerate(messages, stop, run_manager, kwargs)

        request = self._request(messages, kwargs, stop)
        return await self.cassette.aplay_or_record(
            request, LANGCHAIN, call, _dump_result, _load_result
        )

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        slot = self.cassette.lookup(self._request(messages, kwargs, stop), LANGCHAIN)
        if slot.exchange is not None:
            for chunk in self.cassette.decode_answer(slot, _load_chunks):
                if run_manager is not None:
                    run_manager.on_llm_new_token(chunk.text, chunk=chunk)
                yield chunk
            return
        chunks = []
        forward = self._forwarded(kwargs)
        with _allowed(self.inner):  # while the stream is read: it calls on each chunk
            stream = self.inner._stream(messages, stop=stop, run_manager=run_manager, **forward)
            for chunk in stream:
                chunks.append(_dump_chunk(chunk))  # now: the caller may change the chunk later
                yield chunk
        self.cassette.record(slot, LANGCHAIN, {"chunks": chunks})

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        slot = self.cassette.lookup(self._request(messages, kwargs, stop), LANGCHAIN)
        if slot.exchange is not None:
            for chunk in self.cassette.decode_answer(slot, _load_chunks):
                if run_manager is not None:
                    await run_manager.on_llm_new_token(chunk.text, chunk=chunk)
                yield chunk
            return
        chunks = []
        forward = self._forwarded(kwargs)
        with _allowed(self.inner):
            astream = self.inner._astream(messages, stop=stop, run_manager=run_manager, **forward)
            async for chunk in astream:
                chunks.append(_dump_chunk(chunk))
                yield chunk
        self.cassette.record(slot, LANGCHAIN, {"chunks": chunks})


@contextmanager
def _allowed(model: Any) -> Iterator[None]:
    """``allow_model`` for the model a cassette wraps and, through any recorder wrapped in
    between (``cassette.wrap(RecordingChatModel(chat))``), for the model that answers."""
    with ExitStack() as stack:
        while model is not None:
            stack.enter_context(allow_model(model))
            model = model.inner if isinstance(model, RecordingChatModel) else None
        yield


# -- answers as JSON ----------------------------------------------------------------------


def _dump_result(result: ChatResult) -> dict[str, Any]:
    generations = [_dump_chunk(item) for item in result.generations]
    return {"generations": generations, "llm_output": result.llm_output}


def _load_result(answer: Mapping[str, Any]) -> ChatResult:
    if "chunks" in answer:
        return generate_from_stream(iter(_load_chunks(answer)))
    generations = [
        ChatGeneration(message=_message(item), generation_info=item.get("generation_info"))
        for item in _items(answer, "generations")
    ]
    return ChatResult(generations=generations, llm_output=answer.get("llm_output"))


def _dump_chunk(generation: ChatGeneration) -> dict[str, Any]:
    """A generation (or a streamed chunk) without the fields left empty, so the file shows
    what the model said; loading gives the empty fields back as their defaults."""
    dumped = message_to_dict(generation.message)
    data = {
        key: value
        for key, value in dumped["data"].items()
        if key == "content" or (key != "type" and value not in (None, {}, []))
    }
    message = {"type": dumped["type"], "data": data}
    return {"message": message, "generation_info": generation.generation_info}


def _load_chunks(answer: Mapping[str, Any]) -> list[ChatGenerationChunk]:
    if "chunks" in answer:
        return [
            ChatGenerationChunk(
                message=_as_chunk(_message(item)), generation_info=item.get("generation_info")
            )
            for item in _items(answer, "chunks")
        ]
    # Recorded without streaming: the whole answer streams back as one chunk.
    first = _items(answer, "generations")[0]
    message = _message(first)
    return [
        ChatGenerationChunk(
            message=_as_chunk(message), generation_info=first.get("generation_info")
        )
    ]


# What a recorded answer may hold as a message: the model's own (AIMessage / AIMessageChunk).
_AI_TYPES = ("ai", "AIMessageChunk")
_CALL_LISTS = ("tool_calls", "invalid_tool_calls", "tool_call_chunks")


def _items(answer: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    """``answer[key]``: a non-empty list of objects (else a TypeError or ValueError naming
    what is wrong)."""
    items = answer[key]
    if not isinstance(items, list):
        raise TypeError(f'"{key}" is a {type(items).__name__}, not a list')
    if not items:
        raise ValueError(f'"{key}" is empty: a model answers with at least one')
    for number, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise TypeError(f'"{key}"[{number}] is a {type(item).__name__}, not an object')
    return items


def _message(item: Mapping[str, Any]) -> AIMessage:
    """The AI message of a recorded generation or chunk; anything else (a human message, a
    list, a message without its data) is a ValueError naming what is wrong."""
    data = item["message"]
    if not isinstance(data, Mapping):
        raise TypeError(f'"message" is a {type(data).__name__}, not an object')
    kind = data.get("type")
    if kind not in _AI_TYPES:
        raise ValueError(
            f'"message" has type {kind!r}; a model answers with an AI message '
            f"(type {' or '.join(map(repr, _AI_TYPES))})"
        )
    fields = data.get("data")
    if not isinstance(fields, Mapping):
        raise TypeError(f'"message" has no "data" object (got {type(fields).__name__})')
    for name in _CALL_LISTS:
        calls = fields.get(name, [])
        if not isinstance(calls, list) or not all(isinstance(call, Mapping) for call in calls):
            raise TypeError(f'"{name}" of the message is not a list of objects')
    message = messages_from_dict([dict(data)])[0]
    if not isinstance(message, AIMessage):  # pragma: no cover - the type was checked
        raise ValueError(f'"message" is a {type(message).__name__}, not an AI message')
    return message


def _as_chunk(message: AIMessage) -> AIMessageChunk:
    import json

    if isinstance(message, AIMessageChunk):
        return message

    calls = [
        {"name": call["name"], "args": json.dumps(call["args"]), "id": call["id"], "index": i}
        for i, call in enumerate(message.tool_calls)
    ]
    return AIMessageChunk(
        content=message.content,
        additional_kwargs=message.additional_kwargs,
        response_metadata=message.response_metadata,
        usage_metadata=message.usage_metadata,
        id=message.id,
        name=message.name,
        tool_call_chunks=calls,
    )
