"""Content blocks between LangChain's dicts and hookproof's blocks, both ways.

LangChain's standard blocks (langchain_core 1.x) that hookproof models become hookproof
blocks: text, reasoning, image, audio, video and file (data by url, base64 or file_id). Keys
hookproof has no field for ride in the block's ``extras`` and come back as they were. Any
other block (a refusal, plain-text data, server tool calls, provider formats hookproof does
not read) becomes a text block holding the block as JSON, marked with its kind in ``extras``,
so hooks and snapshots still show it, and turns back into the block it was: a LangChain
message crosses into hookproof and back equal to itself.

Provider formats that hookproof reads (OpenAI's ``image_url``, Anthropic's ``thinking``,
LangChain's older ``source_type`` data blocks) are normalised to hookproof's image and
reasoning blocks, and come back in the standard format.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hookproof._support.frozen import thaw
from hookproof.messages import (
    AudioBlock,
    FileBlock,
    ImageBlock,
    ReasoningBlock,
    TextBlock,
    VideoBlock,
)

__all__ = ["KIND", "hp_block", "lc_block"]

KIND = "kind"  # extras key of a text block that stands for a block of another kind
_MEDIA: dict[str, type[ImageBlock | AudioBlock | VideoBlock | FileBlock]] = {
    "image": ImageBlock,
    "audio": AudioBlock,
    "video": VideoBlock,
    "file": FileBlock,
}
_MEDIA_KEYS = ("url", "base64", "file_id", "mime_type")


def hp_block(raw: Any) -> Any:
    """The hookproof block for one item of a LangChain message's content list."""
    if isinstance(raw, str):
        return TextBlock(text=raw)
    if not isinstance(raw, Mapping):
        return TextBlock(text=str(raw))
    kind = raw.get("type")
    if kind == "text" and isinstance(raw.get("text", ""), str):
        data = _rest(raw, "type", "text", "id", "cache_control")
        return TextBlock(
            text=raw.get("text", ""), id=raw.get("id"), cache_control=raw.get("cache_control"),
            extras=data,
        )  # fmt: skip
    if kind in _MEDIA and "source_type" not in raw and _media_values_are_text(raw):
        return _media(_MEDIA[kind], raw)
    if kind in ("reasoning", "thinking") or kind in ("image", "image_url"):
        return _normalised(kind, dict(raw))
    return TextBlock(text=json.dumps(raw, sort_keys=True, default=str), extras={KIND: str(kind)})


def _rest(raw: Mapping[str, Any], *taken: str) -> dict[str, Any]:
    return {key: value for key, value in raw.items() if key not in taken}


def _media_values_are_text(raw: Mapping[str, Any]) -> bool:
    return all(isinstance(raw[key], str) for key in (*_MEDIA_KEYS, "id") if key in raw)


def _media(cls: type[Any], raw: Mapping[str, Any]) -> Any:
    values = {key: raw[key] for key in _MEDIA_KEYS if key in raw}
    extras = _rest(raw, "type", "id", "cache_control", *_MEDIA_KEYS)
    return cls(id=raw.get("id"), cache_control=raw.get("cache_control"), extras=extras, **values)


def _normalised(kind: str, data: dict[str, Any]) -> Any:
    """Provider formats hookproof reads, as hookproof's reasoning or image block."""
    data.pop("type", None)
    cache = data.pop("cache_control", None)
    block_id = data.pop("id", None)
    if kind in ("reasoning", "thinking"):
        text = data.pop("reasoning", None) or data.pop("thinking", "")
        return ReasoningBlock(reasoning=str(text), id=block_id, extras=data)
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


def lc_block(block: Any) -> dict[str, Any]:
    """The LangChain content block for a hookproof block (a fresh, unlocked dict)."""
    if isinstance(block, TextBlock):
        kept = _kept_block(block)
        if kept is not None:
            return kept
    data: dict[str, Any] = {"type": block.type}
    if isinstance(block, TextBlock):
        data["text"] = block.text
    elif isinstance(block, ReasoningBlock):
        data["reasoning"] = block.reasoning
    else:
        dumped = block.model_dump(exclude_none=True, exclude={"extras", "id", "cache_control"})
        data.update(thaw(dumped))
    if block.id is not None:
        data["id"] = block.id
    if block.cache_control is not None:
        data["cache_control"] = thaw(block.cache_control)
    data.update(thaw(block.extras))
    return data


def _kept_block(block: TextBlock) -> dict[str, Any] | None:
    """The block a marked text block stands for, when it is still the one hp_block made."""
    kind = block.extras.get(KIND)
    if len(block.extras) != 1 or not isinstance(kind, str) or block.id or block.cache_control:
        return None
    try:
        found = json.loads(block.text)
    except ValueError:
        return None
    return found if isinstance(found, dict) and str(found.get("type")) == kind else None
