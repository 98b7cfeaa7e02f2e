"""The canonical, readable text of a FinalRequest.

``render`` writes a request's RequestView (see ``view``) as text a person reviews in a diff;
``parse`` reads that text back into the same view. The first line carries the format
version, so a file written by another format is recognised and regenerated, never misread.
Format 2 is format 1 plus a closing ``provenance:`` section (which layer wrote each
system-prompt line and registered, added, changed or removed each tool; see
hookproof.provenance); a request without provenance is still written as format 1, and both
are read.
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
    FORMAT_VERSION,
    NONE,
    PLAIN_FORMAT,
    ProvenanceView,
    RequestView,
    ToolView,
    one_line,
)
from hookproof.snapshot._view import view
from hookproof.snapshot.files import HEADER

__all__ = ["content_hash", "render", "render_view", "without_provenance"]


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
    lines = [f"{HEADER}{FORMAT_VERSION if shown else PLAIN_FORMAT}"]
    lines += [
        f"model: {one_line(data.model)}",
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
    return "\n".join(lines) + "\n"


def render(
    request: FinalRequest | RequestView,
    *,
    matchers: Sequence[Matcher] = DEFAULT_MATCHERS,
    normalise_ids: bool = True,
    provenance: bool = True,
) -> str:
    """The canonical text of a final request: stable order, normalised values, sorted JSON;
    with ``provenance`` (and a request that carries it), the provenance section last."""
    if isinstance(request, RequestView):
        if not provenance and request.provenance is not None:
            request = replace(request, provenance=None)
        return render_view(request)
    shown = view(request, matchers=matchers, normalise_ids=normalise_ids, provenance=provenance)
    return render_view(shown)


def content_hash(request: FinalRequest | RequestView, **options: Any) -> str:
    """sha256 of the canonical text: equal across processes and PYTHONHASHSEED values."""
    return hashlib.sha256(render(request, **options).encode("utf-8")).hexdigest()


def without_provenance(text: str) -> str:
    """A rendered snapshot's text as a request without provenance renders it (format 1)."""
    if not text.startswith(f"{HEADER}{FORMAT_VERSION}\n"):
        return text
    body = text.split("\n", 1)[1]
    cut = body.rfind("\n\nprovenance:\n")
    return f"{HEADER}{PLAIN_FORMAT}\n" + (body[: cut + 1] if cut >= 0 else body)
