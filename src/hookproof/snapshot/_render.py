"""The canonical, readable text of a FinalRequest.

``render`` writes a request's RequestView (see ``view``) as text a person reviews in a diff;
``parse`` reads that text back into the same view. The first line carries the format
version, so a file written by another format is recognised and regenerated, never misread.
Format 2 is format 1 plus a closing ``provenance:`` section (which layer wrote each
system-prompt line and registered, added, changed or removed each tool; see
hookproof.provenance); a request without provenance is still written as format 1. Format 3
is a subagent's request: an ``agent: NAME (depth N)`` line after ``model:``, and always a
closing provenance section (``(none)`` when the request has none). A main agent's request is
written as before (format 1 or 2), so its snapshot stays byte-identical; all three are read.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from hookproof._support.frozen import thaw
from hookproof.provenance import runs
from hookproof.requests import FinalRequest
from hookproof.snapshot._normalise import DEFAULT_MATCHERS, Matcher
from hookproof.snapshot._request_view import (
    NONE,
    PLAIN_FORMAT,
    PROVENANCE_FORMAT,
    ProvenanceView,
    RequestView,
    ToolView,
    one_line,
    sender_line,
)
from hookproof.snapshot._view import view
from hookproof.snapshot.files import HEADER

__all__ = ["as_written_in", "content_hash", "render", "render_view", "without_provenance"]


def _pretty(value: Any) -> list[str]:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, indent=2).split("\n")


def _indented(lines: Sequence[str], indent: str) -> list[str]:
    return [f"{indent}{line}" for line in lines] if lines else [f"{indent}{NONE}"]


def _tool_lines(tool: ToolView) -> list[str]:
    description = [f"| {line}" if line else "|" for line in tool.description.split("\n")]
    parameters = [f"| {line}" for line in _pretty(thaw(tool.parameters))]
    return [
        f"  {tool.name}",
        "    description:",
        *(f"    {line}" for line in description),
        "    parameters:",
        *(f"    {line}" for line in parameters),
    ]


def _provenance_lines(data: ProvenanceView) -> list[str]:
    sections = [f"  system {item.lines()}: {item.origin}" for item in runs(data.system)]
    tools = [f"  tool {name}: {events}" for name, events in sorted(data.tools.items())]
    return ["", "provenance:", *sections, *tools]


def render_view(data: RequestView) -> str:
    shown = data.provenance is not None and bool(data.provenance.system or data.provenance.tools)
    lines = [f"{HEADER}{data.version}", f"model: {one_line(data.model)}"]
    if data.sender is not None:
        lines.append(f"agent: {sender_line(data.sender)}")
    lines += [
        f"tool_choice: {one_line(data.tool_choice)}",
        f"response_format: {one_line(data.response_format)}",
        f"settings: {one_line(data.settings)}",
        "",
        "system:",
        *_indented(data.system, "  "),
        "",
        "messages:",
        *_indented(data.messages, "  "),
        "",
        f"tools: {len(data.tools)}",
        *(line for item in data.tools for line in _tool_lines(item)),
    ]
    if shown:
        assert data.provenance is not None
        lines += _provenance_lines(data.provenance)
    elif data.sender is not None:  # format 3 always ends with it: a cut file shows
        lines += ["", "provenance:", f"  {NONE}"]
    return "\n".join(lines) + "\n"


def render(
    request: FinalRequest | RequestView,
    *,
    matchers: Sequence[Matcher] = DEFAULT_MATCHERS,
    normalise_ids: bool = True,
    provenance: bool = True,
) -> str:
    """The canonical text of a final request: stable order, normalised values, sorted JSON;
    with ``provenance`` (and a request that carries it), the provenance section last and,
    for a subagent's request, the ``agent:`` line naming it (``provenance=False``: what the
    model received only)."""
    if isinstance(request, RequestView):
        if not provenance:
            request = replace(request, provenance=None, sender=None)
        return render_view(request)
    shown = view(request, matchers=matchers, normalise_ids=normalise_ids, provenance=provenance)
    return render_view(shown)


def content_hash(request: FinalRequest | RequestView, **options: Any) -> str:
    """sha256 of the canonical text: equal across processes and PYTHONHASHSEED values."""
    return hashlib.sha256(render(request, **options).encode("utf-8")).hexdigest()


def as_written_in(text: str, version: int) -> str | None:
    """A rendered snapshot's text as format ``version`` writes the same request, without
    what that format cannot say (the agent line below format 3, the provenance section
    below format 2); None when that format cannot write it (format 2 needs provenance)."""
    header, _, body = text.partition("\n")
    if version >= _version_of(header):
        return text
    lines = body.split("\n")
    if lines[1:2] and lines[1].startswith("agent: "):
        del lines[1]
    body, none = "\n".join(lines), f"\n\nprovenance:\n  {NONE}\n"
    body = body[: 1 - len(none)] if body.endswith(none) else body
    cut = body.rfind("\n\nprovenance:\n")
    if version < PROVENANCE_FORMAT and cut >= 0:
        body = body[: cut + 1]
    elif version == PROVENANCE_FORMAT and cut < 0:
        return None
    return f"{HEADER}{version}\n{body}"


def without_provenance(text: str) -> str:
    """A rendered snapshot's text as format 1 writes the same request."""
    return as_written_in(text, PLAIN_FORMAT) or text


def _version_of(header: str) -> int:
    number = header.removeprefix(HEADER)
    return (
        int(number) if header.startswith(HEADER) and number.isdecimal() and len(number) < 6 else 0
    )
