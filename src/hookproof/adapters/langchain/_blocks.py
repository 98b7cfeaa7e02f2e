"""Content blocks between LangChain's dicts and hookproof's blocks, both ways.

LangChain's standard blocks (langchain_core 1.x) that hookproof models become hookproof
blocks: text, reasoning, image, audio, video and file (data by url, base64 or file_id). Keys
hookproof has no field for ride in the block's ``extras`` and come back as they were. Any
other block (a refusal, plain-text data, server tool calls, provider formats hookproof does
not read) becomes a text block holding the block as JSON, marked with its kind in ``extras``,
so hooks and snapshots still show it, and turns back into the block it was: a LangChain
message crosses into hookproof and back equal to itself.

LangChain's older (v0) data blocks (an image, audio or file with ``source_type`` url, base64
or id) become hookproof's media blocks too, their ``data`` as ``base64`` and their ``id`` as
``file_id``, with ``source_type`` in ``extras``: they come back in their own shape. Provider
formats that hookproof reads (OpenAI's ``image_url``, Anthropic's ``thinking``) are normalised
to hookproof's image and reasoning blocks, and come back in the standard format.
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
SOURCE_TYPE = "source_type"
# A v0 data block's keys for hookproof's media fields, by its source_type.
_V0_KEYS = {"url": "url", "base64": "data", "id": "id"}
_V0_FIELDS = {"url": "url", "data": "base64", "id": "file_id", "mime_type": "mime_type"}


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
    if kind in _MEDIA and SOURCE_TYPE not in raw and _media_values_are_text(raw):
        return _media(_MEDIA[kind], raw)
    if kind in _MEDIA and _is_v0_data_block(raw):
        return _v0_media(_MEDIA[kind], raw)
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


def _is_v0_data_block(raw: Mapping[str, Any]) -> bool:
    key = _V0_KEYS.get(raw.get(SOURCE_TYPE))  # type: ignore[arg-type]
    return key is not None and all(
        isinstance(raw[name], str) for name in (key, "mime_type") if name in raw
    )


def _v0_media(cls: type[Any], raw: Mapping[str, Any]) -> Any:
    """A v0 data block: only its source's key is read as the data (an ``id`` beside a url
    stays in extras), so the block comes back as it was."""
    source = _V0_KEYS[raw[SOURCE_TYPE]]
    read = {key: field for key, field in _V0_FIELDS.items() if key in (source, "mime_type")}
    values = {field: raw[key] for key, field in read.items() if key in raw}
    return cls(**values, extras=_rest(raw, "type", *read))


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
    elif isinstance(block.extras.get(SOURCE_TYPE), str) and block.extras[SOURCE_TYPE] in _V0_KEYS:
        data.update(_v0_fields(block))
    else:
        dumped = block.model_dump(exclude_none=True, exclude={"extras", "id", "cache_control"})
        data.update(thaw(dumped))
    if block.id is not None:
        data["id"] = block.id
    if block.cache_control is not None:
        data["cache_control"] = thaw(block.cache_control)
    data.update(thaw(block.extras))
    return data


def _v0_fields(block: Any) -> dict[str, Any]:
    fields = {field: key for key, field in _V0_FIELDS.items()}
    dumped = block.model_dump(exclude_none=True, exclude={"extras", "id", "cache_control", "type"})
    return {fields.get(name, name): value for name, value in thaw(dumped).items()}


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
