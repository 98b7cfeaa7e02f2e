"""Model streams in the Eino dialect: collecting, concatenating and replaying chunks."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from hookproof._support.frozen import FrozenDict
from hookproof.errors import (
    EinoError,
    UsageError,
)
from hookproof.messages import (
    AssistantMessage,
    ContentBlock,
    TextBlock,
    construct,
)

if TYPE_CHECKING:
    pass


__all__ = ["collect", "concat_messages", "partial_chunks", "replay"]

# -- messages and streams -----------------------------------------------------------------


def concat_messages(chunks: tuple[AssistantMessage, ...]) -> AssistantMessage:
    """Join streamed chunks into one message: texts joined, tool calls in order, the
    first chunk's metadata (Eino's ConcatMessages, simplified to what hookproof shows)."""
    if not chunks:
        raise EinoError(
            "hookproof: the model's stream ended without a single chunk; a stream must yield "
            "at least one AssistantMessage."
        )
    if len(chunks) == 1:
        return chunks[0]
    blocks: list[ContentBlock] = []
    for chunk in chunks:
        for block in chunk.content:
            if blocks and isinstance(block, TextBlock) and isinstance(blocks[-1], TextBlock):
                blocks[-1] = TextBlock(text=blocks[-1].text + block.text)
            else:
                blocks.append(block)
    calls = tuple(call for chunk in chunks for call in chunk.tool_calls)
    return construct(
        AssistantMessage,
        content=tuple(blocks),
        tool_calls=calls,
        id=chunks[0].id,
        name=chunks[0].name,
        additional_kwargs=_merged(chunk.additional_kwargs for chunk in chunks),
        response_metadata=_merged(chunk.response_metadata for chunk in chunks),
    )


def _merged(maps: Iterable[Mapping[str, Any]]) -> FrozenDict:
    """Metadata of streamed chunks: a later chunk's key wins (finish reason, usage)."""
    merged: dict[str, Any] = {}
    for item in maps:
        merged.update(item)
    return FrozenDict(merged)


def collect(stream: Any, what: str) -> tuple[Any, ...]:
    """Materialise a stream (any iterable) into a tuple, with a clear error for non-streams."""
    if isinstance(stream, str | bytes) or not hasattr(stream, "__iter__"):
        raise UsageError(
            f"hookproof: {what} returned {type(stream).__name__}; a streaming endpoint returns "
            "an iterator (a generator or a list) of chunks."
        )
    chunks: list[Any] = []
    try:
        for chunk in stream:
            chunks.append(chunk)
    except Exception as error:
        if chunks and not partial_chunks(error):
            # what the stream gave before failing, for retry and failover decisions
            with contextlib.suppress(AttributeError, TypeError):
                error.hookproof_partial_chunks = tuple(chunks)  # type: ignore[attr-defined]
        raise
    return tuple(chunks)


def partial_chunks(error: BaseException) -> tuple[Any, ...]:
    """What a failed stream yielded before ``error`` (empty when it was not a stream)."""
    found = getattr(error, "hookproof_partial_chunks", ())
    return found if isinstance(found, tuple) else ()


def replay(chunks: tuple[Any, ...]) -> Iterator[Any]:
    return iter(chunks)
