"""RequestView: a FinalRequest as plain, normalised data — what a snapshot renders, parses
and diffs — and what its text format writes and reads alike."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hookproof.provenance import AGENT
from hookproof.requests import Sender

__all__ = [
    "EMPTY_SYSTEM",
    "FORMAT_VERSION",
    "NONE",
    "PLAIN_FORMAT",
    "PROVENANCE_FORMAT",
    "ProvenanceView",
    "RequestView",
    "ToolView",
    "is_text",
    "one_line",
    "sender_line",
    "tool_name",
]

FORMAT_VERSION = 3  # a subagent's request: an ``agent:`` line names the subagent
PROVENANCE_FORMAT = 2  # a main agent's request with provenance: format 2's text exactly
PLAIN_FORMAT = 1  # a main agent's request without provenance: format 1's text exactly
UNNAMED = "(unnamed)"
NONE = "(none)"
EMPTY_SYSTEM = "(empty system message)"


@dataclass(frozen=True)
class ToolView:
    name: str
    description: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True)
class ProvenanceView:
    """The origin of each text line of the system section (its ``| ...`` lines, the lines
    of the prompt itself) and each tool's history ("registered by X; removed by Y"), by
    tool name as rendered."""

    system: tuple[str, ...]
    tools: Mapping[str, str]

    def line_origins(self, system: Sequence[str]) -> list[str]:
        """One origin per line of the system section ``system``: a block header counts as
        the text it heads (a diff reads it once, then names each hunk's from it)."""
        return _every_line(self.system, system)


def origin_of(origins: Sequence[str], first: int, last: int) -> str | None:
    """The origins of lines ``first``..``last`` (0-based, end excluded), each named once, in
    order; ``origins`` is what ``ProvenanceView.line_origins`` gave."""
    found = dict.fromkeys(origins[first:last])
    return ", ".join(found) if found else None


def is_text(line: str) -> bool:
    return line.startswith("| ") or line == "|"


def _every_line(origins: Sequence[str], system: Sequence[str]) -> list[str]:
    """One origin per line of the section: a header or metadata line takes the origin of
    the next text line (of the one before, at the end)."""
    expanded: list[str | None] = []
    texts = iter(origins)
    for line in system:
        expanded.append(next(texts, None) if is_text(line) else None)
    following: str | None = None
    for index in range(len(expanded) - 1, -1, -1):
        following = expanded[index] = expanded[index] or following
    last = next((item for item in reversed(expanded) if item), AGENT)
    return [item or last for item in expanded]


@dataclass(frozen=True)
class RequestView:
    """A FinalRequest as plain, normalised data: what is rendered, parsed and diffed."""

    model: str
    tool_choice: Any
    response_format: Any
    settings: Mapping[str, Any]
    system: tuple[str, ...]
    messages: tuple[str, ...]
    tools: tuple[ToolView, ...]
    provenance: ProvenanceView | None = None
    sender: Sender | None = None
    """The subagent that sent the request; None for the main agent's (and for a file
    written before senders were recorded, format 1 or 2)."""

    @property
    def version(self) -> int:
        """The format its text is written in: the oldest that holds all it says."""
        if self.sender is not None:
            return FORMAT_VERSION
        shown = self.provenance is not None and bool(
            self.provenance.system or self.provenance.tools
        )
        return PROVENANCE_FORMAT if shown else PLAIN_FORMAT

    @property
    def tool_names(self) -> list[str]:
        return [item.name for item in self.tools]

    def tool(self, name: str) -> ToolView | None:
        return next((item for item in self.tools if item.name == name), None)

    @property
    def system_text(self) -> list[str]:
        """The system prompt's text lines, without block headers."""
        return [line[2:] for line in self.system if is_text(line)]


def one_line(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))


def _needs_quotes(name: str) -> bool:
    return not name or any(char.isspace() for char in name) or name.startswith('"')


def tool_name(name: str) -> str:
    """Names with spaces or line breaks are shown JSON-quoted, so every name fits one line."""
    return one_line(name) if _needs_quotes(name) else name


def sender_line(sender: Sender) -> str:
    """``researcher (depth 1)``: a name that could be misread (spaces, control characters, a
    leading parenthesis or quote) is JSON-quoted; no name is ``(unnamed)``."""
    name = sender.name
    if name is None:
        shown = UNNAMED
    elif _needs_quotes(name) or not name.isprintable() or name.startswith("("):
        shown = one_line(name)
    else:
        shown = name
    return f"{shown} (depth {sender.depth})"
