"""A LangChain chat model behind a cassette (imported only when one is wrapped)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from typing import Any, ClassVar

from langchain_core.language_models.chat_models import generate_from_stream
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    message_to_dict,
    messages_from_dict,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field

from hookproof.adapters.langchain import RecordingChatModel, final_request
from hookproof.adapters.langchain.models import ModelCall, tool_call_chunks
from hookproof.guard import allow_model
from hookproof.recording._player import Player, Slot
from hookproof.requests import FinalRequest

__all__ = ["LANGCHAIN", "CassetteChatModel"]

LANGCHAIN = "langchain"


class CassetteChatModel(RecordingChatModel):
    """A LangChain chat model behind a cassette: invoke, ainvoke, stream and astream replay
    the recorded answer to their request, or call the inner model's own ``_generate`` /
    ``_agenerate`` / ``_stream`` / ``_astream`` and record it (only while the cassette
    records). Requests are also kept, as RecordingChatModel keeps them."""

    __test__: ClassVar[bool] = False
    hookproof_offline: ClassVar[bool] = True
    cassette: Player = Field(exclude=True, repr=False)

    @property
    def _llm_type(self) -> str:
        return "hookproof-cassette"

    def _answer(self, call: ModelCall) -> ChatResult:
        def live() -> ChatResult:
            with _allowed(self.inner):  # the cassette records: its inner model may run
                return self._inner_generate(call)

        request = self._request(call)
        return self.cassette.play_or_record(request, LANGCHAIN, live, _dump_result, _load_result)

    async def _aanswer(self, call: ModelCall) -> ChatResult:
        async def live() -> ChatResult:
            with _allowed(self.inner):
                return await self._inner_agenerate(call)

        request = self._request(call)
        return await self.cassette.aplay_or_record(
            request, LANGCHAIN, live, _dump_result, _load_result
        )

    def _answer_stream(self, call: ModelCall) -> Iterator[ChatGenerationChunk]:
        slot = self._slot(call)
        if slot.exchange is not None:
            for chunk in self.cassette.decode_answer(slot, _load_chunks):
                if call.run_manager is not None:
                    call.run_manager.on_llm_new_token(chunk.text, chunk=chunk)
                yield chunk
            return
        recorded = _Chunks(self.cassette, slot)
        with _allowed(self.inner):  # while the stream is read: it calls on each chunk
            for chunk in self.inner._stream(call.messages, **self._inner_arguments(call)):
                yield recorded.kept(chunk)
        recorded.save()

    async def _aanswer_stream(self, call: ModelCall) -> AsyncIterator[ChatGenerationChunk]:
        slot = self._slot(call)
        if slot.exchange is not None:
            for chunk in self.cassette.decode_answer(slot, _load_chunks):
                if call.run_manager is not None:
                    await call.run_manager.on_llm_new_token(chunk.text, chunk=chunk)
                yield chunk
            return
        recorded = _Chunks(self.cassette, slot)
        with _allowed(self.inner):
            async for chunk in self.inner._astream(call.messages, **self._inner_arguments(call)):
                yield recorded.kept(chunk)
        recorded.save()

    def _request(self, call: ModelCall) -> FinalRequest:
        params = self._record(call)
        return final_request(call.messages, params, model=self.model_name, stop=call.stop)

    def _slot(self, call: ModelCall) -> Slot:
        return self.cassette.lookup(self._request(call), LANGCHAIN)


class _Chunks:
    """A stream's chunks as they pass, dumped when they do (the caller may change a chunk
    later), recorded as the slot's answer once the stream is over."""

    def __init__(self, cassette: Player, slot: Slot) -> None:
        self.cassette, self.slot = cassette, slot
        self.dumped: list[dict[str, Any]] = []

    def kept(self, chunk: ChatGenerationChunk) -> ChatGenerationChunk:
        self.dumped.append(_dump_chunk(chunk))
        return chunk

    def save(self) -> None:
        self.cassette.record(self.slot, LANGCHAIN, {"chunks": self.dumped})


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
    if isinstance(message, AIMessageChunk):
        return message
    return AIMessageChunk(
        content=message.content,
        additional_kwargs=message.additional_kwargs,
        response_metadata=message.response_metadata,
        usage_metadata=message.usage_metadata,
        id=message.id,
        name=message.name,
        tool_call_chunks=tool_call_chunks(message),
    )
