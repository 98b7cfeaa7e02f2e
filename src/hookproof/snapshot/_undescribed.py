"""What the semantic diff says when no rule of its own describes a difference: every part of
two requests that differs is named, and two texts of the same request say where they differ.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from hookproof.requests import Sender
from hookproof.snapshot._change import Change, ChangeClass
from hookproof.snapshot._change import short as _short
from hookproof.snapshot._request_view import RequestView, ToolView, sender_line

__all__ = ["SCALARS", "first_by_name", "sender_changes", "text_changes", "undescribed"]

SCALARS = ("model", "tool_choice", "response_format", "settings")


_UNREAD = "changed in a way the semantic diff does not classify (see the text diff)"


def _unread(subject: str) -> str:
    if subject == "tools":
        return "the same tool names, listed in another order or repeated"
    return _UNREAD


def undescribed(before: RequestView, after: RequestView, changes: Sequence[Change]) -> list[Change]:
    """A REVIEW change for each part that differs while no other change names it (a file
    edited by hand, a schema shape no rule reads): never a silent difference."""
    said = {change.subject for change in changes}
    found = [
        Change(ChangeClass.REVIEW, subject, _unread(subject), _shown(old), _shown(new))
        for subject, old, new in _parts(before, after)
        if old != new and subject not in said
    ]
    if not changes and not found and _comparable(before, after):
        found.append(Change(ChangeClass.REVIEW, "snapshot", _UNREAD))
    return found


def _parts(before: RequestView, after: RequestView) -> Iterator[tuple[str, Any, Any]]:
    for name in SCALARS:
        yield name, getattr(before, name), getattr(after, name)
    yield "system prompt", list(before.system), list(after.system)
    yield "messages", list(before.messages), list(after.messages)
    old_tools, new_tools = first_by_name(before.tools), first_by_name(after.tools)
    for name in sorted(old_tools.keys() & new_tools.keys()):
        yield f"tool {name}", old_tools[name], new_tools[name]
    if set(before.tool_names) == set(after.tool_names):
        yield "tools", before.tool_names, after.tool_names  # the same tools, listed otherwise


def sender_changes(before: RequestView, after: RequestView) -> Iterator[Change]:
    """Another agent sent the request: REVIEW, the same request from elsewhere (a task now
    delegated, or no longer; another subagent). A side without an ``agent:`` line is the
    main agent's request, or a file written before format 3 named subagents."""
    if before.sender != after.sender:
        was, now = _sender_text(before.sender), _sender_text(after.sender)
        yield Change(ChangeClass.REVIEW, "agent", f"now sent by {now}", was, now)


def _sender_text(sender: Sender | None) -> str:
    return "the main agent" if sender is None else f"subagent {sender_line(sender)}"


def _shown(value: Any) -> str:
    if isinstance(value, ToolView):
        value = {"description": value.description, "parameters": dict(value.parameters)}
    return _short(value)


def _comparable(before: RequestView, after: RequestView) -> bool:
    """The views differ, a format-1 side's missing provenance aside."""
    if before.provenance is None or after.provenance is None:
        before, after = replace(before, provenance=None), replace(after, provenance=None)
    return before != after


def text_changes(old: str, new: str, before: RequestView, after: RequestView) -> list[Change]:
    """Two texts of the same request: what differs is how they are written."""
    if old == new:
        return []
    if (before.provenance is None) != (after.provenance is None):
        side = "old" if before.provenance is None else "new"
        what = (
            f"recorded on one side only: the {side} snapshot has no provenance section "
            "(format 1); the model receives the same"
        )
        return [Change(ChangeClass.COSMETIC, "provenance", what)]
    number, was, now = _first_difference(old.split("\n"), new.split("\n"))
    what = (
        f"the same request written differently, first at line {number}; "
        "`pytest --snapshot-update` writes it in the canonical form"
    )
    return [Change(ChangeClass.COSMETIC, "snapshot", what, was, now)]


def _first_difference(old: list[str], new: list[str]) -> tuple[int, str, str]:
    index = next(
        (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
        min(len(old), len(new)),
    )
    end = "(end of file)"
    was = old[index] if index < len(old) else end
    now = new[index] if index < len(new) else end
    return index + 1, _short(was), _short(now)


def first_by_name(tools: Sequence[ToolView]) -> dict[str, ToolView]:
    """Each name's first tool, as RequestView.tool(name) finds it."""
    found: dict[str, ToolView] = {}
    for item in tools:
        found.setdefault(item.name, item)
    return found
