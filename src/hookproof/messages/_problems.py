"""What is wrong with a value that is not a valid message or tool call, in words: each of
pydantic's validation errors becomes one short problem naming where it is."""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from typing import Any

__all__ = ["LISTED_AT_MOST", "is_not_content", "not_content", "problem", "short"]


def short(value: object) -> str:
    """A bounded repr for error messages: a huge or deeply nested value cannot blow them up."""
    bounded = reprlib.Repr()
    bounded.maxstring = bounded.maxother = 60
    bounded.maxlevel = 3
    return bounded.repr(value)


LISTED_AT_MOST = 5


def is_not_content(content: object) -> bool:
    return content is None or isinstance(content, bytes | bytearray | int | float | Mapping)


def not_content(content: object) -> str:
    kind = type(content).__name__
    if isinstance(content, bytes | bytearray):
        return f"is {kind}, not text: decode it first (content.decode('utf-8'))"
    if isinstance(content, Mapping):
        return "is a single mapping: wrap one content block in a list, [block]"
    return f"is {kind} {short(content)}, not text: pass a str (str(value) for a number)"


def _path(loc: tuple[int | str, ...]) -> str:
    """``content[0].text``; the block type pydantic puts after an index is left out."""
    parts = [
        f"[{part}]" if isinstance(part, int) else f".{part}"
        for index, part in enumerate(loc)
        if not (index and isinstance(loc[index - 1], int) and part in _KINDS)
    ]
    return "".join(parts).lstrip(".")


def problem(item: Any) -> str:
    path, kind = _path(item["loc"]), item["type"]
    given = f"got {type(item['input']).__name__} {short(item['input'])}"
    if kind == "missing":
        return f"{path} is required but missing"
    if kind == "extra_forbidden":
        return f"{path} is not a field of this message"
    if kind in ("union_tag_invalid", "union_tag_not_found", "model_attributes_type"):
        kinds = ", ".join(_KINDS)
        return f"{path} is not a content block (a str, or a dict with a type: {kinds}); {given}"
    return f"{path}: {_EXPECTED.get(kind) or item['msg'].lower()}; {given}"


_KINDS = ("text", "image", "audio", "video", "file", "reasoning", "tool_call", "tool_result")
_EXPECTED = {
    "string_type": "must be a string",
    "dict_type": "must be a dict",
    "tuple_type": "must be a list",
}
