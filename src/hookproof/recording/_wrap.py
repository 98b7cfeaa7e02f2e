"""Models behind a cassette: hookproof ChatModels and Eino-style models (LangChain chat
models in ``_langchain``, imported only when one is wrapped)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from hookproof._support.plain import plain_setting
from hookproof.errors import UsageError, safe_repr
from hookproof.messages import AssistantMessage, Message, SystemMessage, TextBlock
from hookproof.recording._player import Player
from hookproof.requests import FinalRequest, model_name
from hookproof.tools import schema_of

__all__ = ["CassetteEinoModel", "CassetteModel", "wrap"]

HOOKPROOF = "hookproof"
EINO = "eino"
_CHAT_MODEL_BASE = ("langchain_core.language_models.chat_models", "BaseChatModel")


def wrap(cassette: Player, model: Any) -> Any:
    if _is_langchain_chat_model(model):
        # Imported only now: it imports LangChain.
        from hookproof.recording._langchain import CassetteChatModel

        return CassetteChatModel(inner=model, cassette=cassette)
    if _from_langchain(model):
        raise UsageError(
            f"hookproof: a cassette wraps a LangChain chat model (a BaseChatModel), not a "
            f"{type(model).__name__}. The cassette sits between the chat model and its "
            "provider, so it needs the model itself. Wrap the chat model, then bind tools or "
            "options to what wrap() returns: cassette.wrap(ChatOpenAI(...)).bind_tools(tools)."
        )
    if callable(getattr(model, "invoke", None)):
        return CassetteModel(model, cassette)
    if callable(getattr(model, "generate", None)) or callable(getattr(model, "stream", None)):
        return CassetteEinoModel(model, cassette)
    raise UsageError(
        f"hookproof: a cassette wraps a model, got {type(model).__name__} "
        f"({safe_repr(model, 60)}). "
        "Wrap a LangChain chat model, a hookproof ChatModel (invoke(FinalRequest)) or an "
        "Eino-style model (generate(ctx, messages, **options) / stream)."
    )


def _is_langchain_chat_model(model: object) -> bool:
    return any((cls.__module__, cls.__name__) == _CHAT_MODEL_BASE for cls in type(model).__mro__)


def _from_langchain(model: object) -> bool:
    return type(model).__module__.startswith(("langchain", "langgraph"))


# -- hookproof messages as JSON ----------------------------------------------------------


def dump_message(message: AssistantMessage) -> dict[str, Any]:
    """The message's fields that differ from their defaults; one plain text block is
    written as ``text`` so the file reads easily."""
    if not isinstance(message, AssistantMessage):
        raise UsageError(
            f"hookproof: the model answered with a {type(message).__name__}; a cassette "
            "records AssistantMessages (what invoke(FinalRequest) returns)."
        )
    data = _pruned(message.model_dump(mode="json"))
    blocks = data.pop("content", [])
    data = {"content": [_pruned(block) for block in blocks], **data}
    if len(blocks) == 1 and data["content"][0].keys() == {"type", "text"}:
        data = {"text": blocks[0]["text"], **data}
        del data["content"]
    elif not blocks:
        del data["content"]
    return data


def _pruned(data: dict[str, Any]) -> dict[str, Any]:
    """Without the fields left empty (loading gives them back as their defaults)."""
    return {key: value for key, value in data.items() if value not in (None, {}, [])}


def load_message(data: Mapping[str, Any]) -> AssistantMessage:
    """The AssistantMessage recorded as ``data``; anything but an object of its fields (a
    list, a string) is a TypeError naming what it is, not an empty message."""
    if not isinstance(data, Mapping):
        raise TypeError(f'"message" is a {type(data).__name__}, not an object')
    fields = dict(data)
    if "text" in fields and "content" in fields:
        raise ValueError('"message" holds both "text" and "content"; keep one of them')
    if "text" in fields:
        fields["content"] = fields.pop("text")
    return AssistantMessage.model_validate(fields)


def _dump_answer(message: AssistantMessage) -> dict[str, Any]:
    return {"message": dump_message(message)}


def _load_answer(answer: Mapping[str, Any]) -> AssistantMessage:
    return load_message(answer["message"])


# -- hookproof ChatModels -----------------------------------------------------------------


class CassetteModel:
    """A hookproof ChatModel behind a cassette: ``invoke`` and ``ainvoke`` replay the
    recorded answer to their FinalRequest, or call ``inner`` and record its answer."""

    __test__ = False
    hookproof_offline = True  # it calls inner only while its cassette records

    def __init__(self, inner: Any, cassette: Player) -> None:
        self.inner = inner
        self.cassette = cassette
        self.name = model_name(inner)
        self.provider: str | None = getattr(inner, "provider", None)
        self.profile: dict[str, Any] = dict(getattr(inner, "profile", None) or {})

    def __repr__(self) -> str:
        return f"CassetteModel(name={self.name!r}, cassette={str(self.cassette.path)!r})"

    def invoke(self, request: FinalRequest) -> AssistantMessage:
        def call() -> AssistantMessage:
            answer: AssistantMessage = self.inner.invoke(request)
            return answer

        return self.cassette.play_or_record(request, HOOKPROOF, call, _dump_answer, _load_answer)

    async def ainvoke(self, request: FinalRequest) -> AssistantMessage:
        async def call() -> AssistantMessage:
            ainvoke = getattr(self.inner, "ainvoke", None)
            answer: AssistantMessage = (
                await ainvoke(request) if ainvoke is not None else self.inner.invoke(request)
            )
            return answer

        return await self.cassette.aplay_or_record(
            request, HOOKPROOF, call, _dump_answer, _load_answer
        )


# -- Eino-style models --------------------------------------------------------------------


class CassetteEinoModel:
    """An Eino-style model (``generate(ctx, messages, **options)`` / ``stream``) behind a
    cassette. A stream is recorded chunk by chunk and replayed as the same chunks; a call
    recorded without streaming streams back as one chunk, and a streamed one generates its
    chunks joined."""

    __test__ = False
    hookproof_offline = True

    def __init__(self, inner: Any, cassette: Player) -> None:
        self.inner = inner
        self.cassette = cassette
        self.name = model_name(inner)

    def __repr__(self) -> str:
        return f"CassetteEinoModel(name={self.name!r}, cassette={str(self.cassette.path)!r})"

    def generate(self, ctx: Any, messages: Sequence[Message], **options: Any) -> AssistantMessage:
        slot = self.cassette.lookup(self._request(messages, options), EINO)
        if slot.exchange is not None:
            return _joined(self.cassette.decode_answer(slot, _eino_chunks))
        answer: AssistantMessage = self.inner.generate(ctx, messages, **options)
        self.cassette.record(slot, EINO, _dump_answer(answer))
        return answer

    def stream(
        self, ctx: Any, messages: Sequence[Message], **options: Any
    ) -> Iterator[AssistantMessage]:
        slot = self.cassette.lookup(self._request(messages, options), EINO)
        if slot.exchange is not None:
            return iter(self.cassette.decode_answer(slot, _eino_chunks))
        chunks = tuple(self.inner.stream(ctx, messages, **options))
        self.cassette.record(slot, EINO, {"chunks": [dump_message(item) for item in chunks]})
        return iter(chunks)

    def _request(self, messages: Sequence[Message], options: Mapping[str, Any]) -> FinalRequest:
        """The FinalRequest the Eino dialect records for these messages and options."""
        system = messages[0] if messages and isinstance(messages[0], SystemMessage) else None
        settings = {
            key: plain_setting(value)
            for key, value in options.items()
            if value is not None and key != "tools"
        }
        return FinalRequest(
            model=self.name,
            system_message=system,
            messages=tuple(messages[1:] if system is not None else messages),
            tools=tuple(schema_of(item) for item in options.get("tools") or ()),
            model_settings=settings,
        )


def _eino_chunks(answer: Mapping[str, Any]) -> tuple[AssistantMessage, ...]:
    if "chunks" in answer:
        chunks = answer["chunks"]
        if not isinstance(chunks, list):
            raise TypeError(f'"chunks" is a {type(chunks).__name__}, not a list')
        if not chunks:
            raise ValueError('"chunks" is empty: a model answers with at least one')
        return tuple(load_message(item) for item in chunks)
    return (_load_answer(answer),)


def _joined(chunks: tuple[AssistantMessage, ...]) -> AssistantMessage:
    """Streamed chunks as one message: adjacent texts joined, tool calls in order, the first
    chunk's id, metadata merged with later chunks winning (their usage, finish reason)."""
    blocks: list[Any] = []
    for block in (block for chunk in chunks for block in chunk.content):
        if blocks and isinstance(block, TextBlock) and isinstance(blocks[-1], TextBlock):
            blocks[-1] = TextBlock(text=blocks[-1].text + block.text)
        else:
            blocks.append(block)
    metadata: dict[str, Any] = {}
    for chunk in chunks:
        metadata.update(chunk.response_metadata)
    return AssistantMessage(
        content=blocks,
        tool_calls=[call for chunk in chunks for call in chunk.tool_calls],
        id=chunks[0].id if chunks else None,
        response_metadata=metadata,
    )
