"""The line and tool bookkeeping provenance is computed with (hookproof.provenance): tools
by name, the system prompt's lines, what a layer changed of each, and the origins of a
rendering's lines."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["AGENT", "map_lines", "prompt_lines", "relabel", "schemas_by_name", "tool_events"]

AGENT = "agent"


def schemas_by_name(tools: Sequence[Any]) -> dict[str, Any]:
    from hookproof.tools import schema_of

    found: dict[str, Any] = {}
    for item in tools:
        schema = schema_of(item)
        found.setdefault(schema.name, schema)
    return found


def prompt_lines(request: Any) -> list[str]:
    system = request.system_message
    return [] if system is None else system.text.split("\n")


def tool_events(
    history: dict[str, list[str]], old: Mapping[str, Any], new: Mapping[str, Any], owner: str
) -> None:
    for name in old.keys() - new.keys():
        _event(history, name, f"removed by {owner}")
    for name in new.keys() - old.keys():
        _event(history, name, f"added by {owner}")
    for name in old.keys() & new.keys():
        before, after = old[name], new[name]
        changed = [
            part
            for part, differs in (
                ("description", before.description != after.description),
                ("parameters", before.parameters != after.parameters),
            )
            if differs
        ]
        if changed:
            _event(history, name, f"{' and '.join(changed)} changed by {owner}")


def _event(history: dict[str, list[str]], name: str, event: str) -> None:
    """Add ``event`` to a tool's history, once: a layer or hook that does the same again on a
    later model call (a wrapper runs on every call; an Eino rewrite may act on a list that
    was refilled with the run's tools) is no new origin."""
    events = history.setdefault(name, [])
    if not events or events[-1] != event:
        events.append(event)


def relabel(lines: list[tuple[str, str]], new: list[str], owner: str) -> list[tuple[str, str]]:
    """``new``'s lines, each keeping its origin where it was already there unchanged, and
    ``owner`` where it is new."""
    old = [text for text, _ in lines]
    if old == new:
        return lines
    from hookproof._support.line_match import LineMatcher  # difflib's answers, near-linear

    kept: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in LineMatcher(old, new).get_opcodes():
        if tag == "equal":
            kept += lines[i1:i2]
        else:
            kept += [(text, owner) for text in new[j1:j2]]
    return kept


def map_lines(source: Sequence[str], origins: Sequence[str], shown: Sequence[str]) -> list[str]:
    """The origins of ``shown`` lines (a rendering of ``source``, perhaps normalised or
    redacted): a line found unchanged keeps its origin, any other takes its neighbour's."""
    from hookproof._support.line_match import LineMatcher  # difflib's answers, near-linear

    mapped: list[str | None] = [None] * len(shown)
    matcher = LineMatcher(list(source), list(shown))
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            mapped[block.b + offset] = origins[block.a + offset]
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "insert") and i2 > i1:
            for index in range(j1, j2):
                mapped[index] = origins[min(i1 + index - j1, i2 - 1)]
    return _filled(mapped)


def _filled(mapped: list[str | None]) -> list[str]:
    last = next((item for item in mapped if item is not None), AGENT)
    filled = []
    for item in mapped:
        last = item if item is not None else last
        filled.append(last)
    return filled
