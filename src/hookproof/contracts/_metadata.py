"""Which metadata a message edit lost: ids, names, kwargs, response metadata, block metadata.

An edit may change a message's text (redaction does); it must keep what identifies the
message and what providers read beside the text. Messages are paired before and after the
edit by position when the edit kept their number, else by id, else by role in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hookproof.messages import Message, SystemMessage

__all__ = ["message_losses", "system_losses"]

_FIELDS = ("id", "name", "additional_kwargs", "response_metadata", "tool_call_id")
_BLOCK_FIELDS = ("id", "cache_control", "extras")


def _field_losses(where: str, before: Message, after: Message) -> list[str]:
    return [
        f"{where}: {field} {getattr(before, field, None)!r} became {getattr(after, field, None)!r}"
        for field in _FIELDS
        if getattr(before, field, None) != getattr(after, field, None)
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
            if getattr(block, field) != getattr(kept, field, None)
        ]
    return found


def _pairs(
    before: Sequence[Message], after: Sequence[Message], *, replaced: bool
) -> list[tuple[Message, Message]]:
    """Which message became which. An update that does not replace the whole list only
    replaces the messages whose ids it carries (others are additions)."""
    if replaced and len(before) == len(after):
        return list(zip(before, after, strict=True))
    pairs = [(old, new) for new in after for old in before if old.id and old.id == new.id]
    if not replaced:
        return pairs
    taken = {id(old) for old, _ in pairs} | {id(new) for _, new in pairs}
    for new in after:
        match = next((old for old in before if old.role == new.role and id(old) not in taken), None)
        if id(new) not in taken and match is not None:
            pairs.append((match, new))
            taken |= {id(match), id(new)}
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
        f"block {index} ({block.type}) was lost or altered: {block!r:.120}"
        for index, block in enumerate(before.content)
        if block not in kept
    ]
    return found
