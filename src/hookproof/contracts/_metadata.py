"""Which metadata a message edit lost: ids, names, kwargs, response metadata, block metadata.

An edit may change a message's text (redaction does) and may add metadata (prompt caching
adds ``cache_control``); it must keep what identifies the message and what providers read
beside the text. A message after the edit is the same message as one before when it has its
id; in a replacement of the whole list of the same length, an id-less message in the same
place with the same role is read as a rebuild of the one it replaced. Any other message is
an addition (a summary, a reminder), never a loss.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hookproof.errors import safe_repr
from hookproof.messages import Message, SystemMessage

__all__ = ["message_losses", "system_losses"]

_FIELDS = ("id", "name", "additional_kwargs", "response_metadata", "tool_call_id")
_BLOCK_FIELDS = ("id", "cache_control", "extras")


def _lost(before: Any, after: Any) -> bool:
    """A value was lost when it was set and is gone or different; for mappings, when a key
    it had is gone or changed (keys may be added)."""
    if before is None or before == {} or before == ():
        return False
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        return any(key not in after or after[key] != value for key, value in before.items())
    return bool(before != after)


def _field_losses(where: str, before: Message, after: Message) -> list[str]:
    return [
        f"{where}: {field} {getattr(before, field, None)!r} became {getattr(after, field, None)!r}"
        for field in _FIELDS
        if _lost(getattr(before, field, None), getattr(after, field, None))
    ]


def _block_losses(where: str, before: Message, after: Message) -> list[str]:
    found = []
    for index, block in enumerate(before.content):
        if index >= len(after.content):
            found.append(f"{where}: block {index} ({block.type}) was dropped")
            continue
        kept = after.content[index]
        found += [
            f"{where}: block {index} {field} {getattr(block, field)!r} became "
            f"{getattr(kept, field, None)!r}"
            for field in _BLOCK_FIELDS
            if _lost(getattr(block, field), getattr(kept, field, None))
        ]
    return found


def _pairs(
    before: Sequence[Message], after: Sequence[Message], *, replaced: bool
) -> list[tuple[Message, Message]]:
    """Which message became which (see the module docstring)."""
    pairs = [(old, new) for new in after for old in before if old.id and old.id == new.id]
    if not (replaced and len(before) == len(after)):
        return pairs
    paired = {id(old) for old, _ in pairs}
    pairs += [
        (old, new)
        for old, new in zip(before, after, strict=True)
        if not new.id and id(old) not in paired and new.role == old.role
    ]
    return pairs


def message_losses(
    before: Sequence[Message], after: Sequence[Message], *, replaced: bool = True
) -> list[str]:
    """What the edit from ``before`` to ``after`` lost of each message's metadata.
    ``replaced``: ``after`` is the whole new list (else: updates merged by id)."""
    found = []
    for old, new in _pairs(before, after, replaced=replaced):
        where = f"{old.role} message {old.id or before.index(old)!r}"
        if type(new) is not type(old):
            found.append(f"{where} became a {new.role} message")
            continue
        found += _field_losses(where, old, new) + _block_losses(where, old, new)
    return found


def system_losses(before: SystemMessage, after: Any) -> list[str]:
    """The system message must keep its metadata and every block exactly (edits add)."""
    if after is None:
        return ["the system message was removed"]
    found = [
        f"{field} {getattr(before, field)!r} became {getattr(after, field)!r}"
        for field in ("id", "name", "additional_kwargs", "response_metadata")
        if getattr(before, field) != getattr(after, field)
    ]
    kept = list(after.content)
    found += [
        f"block {index} ({block.type}) was lost or altered: {safe_repr(block, 120)}"
        for index, block in enumerate(before.content)
        if block not in kept
    ]
    return found
