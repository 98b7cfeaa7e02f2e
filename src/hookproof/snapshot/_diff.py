"""The semantic diff of two final requests, each change classified.

BREAKING  a tool removed; a parameter removed or retyped; a parameter's requiredness changed
          (a new required parameter included).
SECURITY  a tool visible now that was not before.
REVIEW    prompt, description, message, tool_choice, settings or model text changed.
COSMETIC  the same change up to whitespace; or only the provenance of a tool changed (which
          layer registered, added or changed it), what the model receives being the same.

Where the snapshots carry provenance, each change says where it comes from: the new side's
history of a tool ("registered by FilesystemMiddleware"), the layer that removed one, or the
origin of the system-prompt lines a hunk touches.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from hookproof.errors import UsageError
from hookproof.snapshot._match import LineMatcher
from hookproof.snapshot._render import RequestView, ToolView, parse, view
from hookproof.vocabulary import FinalRequest

__all__ = ["Change", "ChangeClass", "SnapshotDiff", "diff"]


class ChangeClass(StrEnum):
    BREAKING = "BREAKING"
    SECURITY = "SECURITY"
    REVIEW = "REVIEW"
    COSMETIC = "COSMETIC"


_SEVERITY = {ChangeClass.BREAKING: 0, ChangeClass.SECURITY: 1, ChangeClass.REVIEW: 2}
_DESCRIPTIVE_KEYS = frozenset({"description", "title", "default", "examples"})


@dataclass(frozen=True)
class Change:
    """One classified change: ``kind`` is BREAKING/SECURITY/REVIEW/COSMETIC."""

    kind: ChangeClass
    subject: str
    what: str
    before: str | None = None
    after: str | None = None
    origin: str | None = None  # where it comes from, when the snapshots say (provenance)

    @property
    def explained(self) -> str:
        """What changed, with its origin when known."""
        return f"{self.what} ({self.origin})" if self.origin else self.what

    def describe(self) -> str:
        return f"{self.kind.value:<8} {self.subject}: {self.explained}"

    def as_dict(self) -> dict[str, str | None]:
        return {
            "class": self.kind.value,
            "subject": self.subject,
            "what": self.what,
            "origin": self.origin,
            "before": self.before,
            "after": self.after,
        }


@dataclass(frozen=True)
class SnapshotDiff:
    """All changes between two requests, most severe first."""

    changes: tuple[Change, ...]

    @property
    def is_empty(self) -> bool:
        return not self.changes

    def of(self, *kinds: ChangeClass) -> list[Change]:
        return [change for change in self.changes if change.kind in kinds]

    @property
    def kinds(self) -> set[ChangeClass]:
        return {change.kind for change in self.changes}

    def format(self) -> str:
        return "\n".join(change.describe() for change in self.changes)


def _squash(text: str) -> str:
    return " ".join(text.split())


def _text_kind(before: str, after: str) -> ChangeClass:
    return ChangeClass.COSMETIC if _squash(before) == _squash(after) else ChangeClass.REVIEW


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."


def _as_view(value: FinalRequest | RequestView | str, side: str) -> RequestView:
    if isinstance(value, RequestView):
        return value
    if isinstance(value, FinalRequest):
        return view(value)
    if isinstance(value, str):
        return parse(value, source=f"the {side} snapshot")
    raise UsageError(
        f"hookproof: diff() compares FinalRequests, RequestViews or snapshot texts, not "
        f"{type(value).__name__} ({side})."
    )


def diff(
    old: FinalRequest | RequestView | str, new: FinalRequest | RequestView | str
) -> SnapshotDiff:
    """Classify every change from ``old`` to ``new`` (see the module docstring)."""
    before, after = _as_view(old, "old"), _as_view(new, "new")
    changes = [
        *_scalar_changes(before, after),
        *_system_changes(before, after),
        *_line_changes("messages", before.messages, after.messages),
        *_tool_changes(before, after),
        *_provenance_changes(before, after),
    ]
    order = sorted(changes, key=lambda change: _SEVERITY.get(change.kind, 3))
    return SnapshotDiff(tuple(order))


def _scalar_changes(before: RequestView, after: RequestView) -> Iterator[Change]:
    for name in ("model", "tool_choice", "response_format", "settings"):
        old, new = getattr(before, name), getattr(after, name)
        if old != new:
            yield Change(ChangeClass.REVIEW, name, "changed", _short(old), _short(new))


Hunk = tuple[str, int, int, int, int]


def _line_changes(
    subject: str,
    old: tuple[str, ...],
    new: tuple[str, ...],
    origin: Callable[[Hunk], str | None] = lambda hunk: None,
) -> Iterator[Change]:
    """One change per differing hunk, so a rewritten paragraph reads as one change."""
    matcher = LineMatcher(old, new)
    for hunk in matcher.get_opcodes():
        tag, i1, i2, j1, j2 = hunk
        if tag == "equal":
            continue
        removed, added = "\n".join(old[i1:i2]), "\n".join(new[j1:j2])
        if tag == "replace":
            kind = _text_kind(removed, added)
            what = "whitespace changed" if kind is ChangeClass.COSMETIC else "lines changed"
            if kind is ChangeClass.REVIEW and _headers_only(old[i1:i2], new[j1:j2]):
                what = "message metadata changed"
            yield Change(kind, subject, what, removed, added, origin(hunk))
        elif tag == "delete":
            kind = _blank_kind(old[i1:i2])
            yield Change(kind, subject, _count(i2 - i1, "removed"), removed, None, origin(hunk))
        else:
            kind = _blank_kind(new[j1:j2])
            yield Change(kind, subject, _count(j2 - j1, "added"), None, added, origin(hunk))


def _system_changes(before: RequestView, after: RequestView) -> Iterator[Change]:
    def origin(hunk: Hunk) -> str | None:
        tag, i1, i2, j1, j2 = hunk
        was = before.provenance and before.provenance.lines_origin(before.system, i1, i2)
        now = after.provenance and after.provenance.lines_origin(after.system, j1, j2)
        said = [f"from {now}"] if now and tag != "delete" else []
        if was and tag != "insert" and was != now:
            said.append(f"was from {was}")  # the lines it took away had another origin
        return "; ".join(said) or None

    return _line_changes("system prompt", before.system, after.system, origin)


def _headers_only(old: Sequence[str], new: Sequence[str]) -> bool:
    """Only the header lines of the same messages changed (ids, names, metadata), not what
    they say: ``<role> {...}`` for ``<role> {...}`` line by line."""
    return len(old) == len(new) and all(
        before.startswith("<") and _role(before) == _role(after)
        for before, after in zip(old, new, strict=True)
    )


def _role(line: str) -> str:
    return line.split(">", 1)[0] if line.startswith("<") else ""


def _blank_kind(lines: tuple[str, ...]) -> ChangeClass:
    """Adding or removing only blank text lines is whitespace."""
    blank = all(line.strip() in ("|", "") for line in lines)
    return ChangeClass.COSMETIC if blank else ChangeClass.REVIEW


def _count(lines: int, verb: str) -> str:
    return f"{lines} line{'s' if lines != 1 else ''} {verb}"


def _history(request: RequestView, name: str) -> str | None:
    return request.provenance.tools.get(name) if request.provenance is not None else None


def _removed_origin(before: RequestView, after: RequestView, name: str) -> str | None:
    now = _history(after, name)
    if now is not None:  # registered still, taken away by a layer
        return now
    was = _history(before, name)
    return f"was {was}" if was else None


def _shown_origin(before: RequestView, after: RequestView, name: str) -> str | None:
    """A newly visible tool's history, and the layer that used to hide it, if one did."""
    now, was = _history(after, name), _history(before, name)
    hider = was.rpartition("; ")[2] if was else ""
    if not hider.startswith("removed by ") or (now or "").endswith(hider):
        return now
    return "; ".join(item for item in (now, f"no longer {hider}") if item)


def _tool_changes(before: RequestView, after: RequestView) -> Iterator[Change]:
    old_names, new_names = set(before.tool_names), set(after.tool_names)
    for name in sorted(old_names - new_names):
        origin = _removed_origin(before, after, name)
        yield Change(ChangeClass.BREAKING, f"tool {name}", "removed", origin=origin)
    for name in sorted(new_names - old_names):
        origin = _shown_origin(before, after, name)
        yield Change(
            ChangeClass.SECURITY, f"tool {name}", "now visible to the model", origin=origin
        )
    old_tools, new_tools = _by_name(before.tools), _by_name(after.tools)
    for name in sorted(old_names & new_names):
        origin = _history(after, name)
        for change in _one_tool(old_tools[name], new_tools[name]):
            yield replace(change, origin=origin)


def _provenance_changes(before: RequestView, after: RequestView) -> Iterator[Change]:
    """A tool the model sees on both sides whose history changed (only where both record
    provenance: a snapshot reviewed before provenance existed has none to compare)."""
    if before.provenance is None or after.provenance is None:
        return
    for name in sorted(set(before.tool_names) & set(after.tool_names)):
        old, new = _history(before, name), _history(after, name)
        if old is not None and new is not None and old != new:
            yield Change(ChangeClass.COSMETIC, f"tool {name}", "provenance changed", old, new)


def _by_name(tools: Sequence[ToolView]) -> dict[str, ToolView]:
    """Each name's first tool, as RequestView.tool(name) finds it."""
    found: dict[str, ToolView] = {}
    for item in tools:
        found.setdefault(item.name, item)
    return found


def _one_tool(old: ToolView, new: ToolView) -> Iterator[Change]:
    subject = f"tool {old.name}"
    if old.description != new.description:
        kind = _text_kind(old.description, new.description)
        yield Change(kind, subject, "description changed", old.description, new.description)
    yield from _parameter_changes(subject, old.parameters, new.parameters)


def _properties(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    properties = schema.get("properties", {})
    return properties if isinstance(properties, Mapping) else {}


def _required(schema: Mapping[str, Any]) -> set[str]:
    required = schema.get("required", [])
    if not isinstance(required, list):
        return set()
    return {name for name in required if isinstance(name, str)}


def _type_part(schema: Any) -> Any:
    """The schema without descriptive keys, at every depth (a nested description is text)."""
    if isinstance(schema, Mapping):
        return {k: _type_part(v) for k, v in schema.items() if k not in _DESCRIPTIVE_KEYS}
    if isinstance(schema, list):
        return [_type_part(item) for item in schema]
    return schema


def _parameter_changes(
    subject: str, old: Mapping[str, Any], new: Mapping[str, Any]
) -> Iterator[Change]:
    old_props, new_props = _properties(old), _properties(new)
    old_req, new_req = _required(old), _required(new)
    for name in sorted(set(old_props) - set(new_props)):
        yield Change(ChangeClass.BREAKING, subject, f"parameter {name!r} removed")
    for name in sorted(set(new_props) - set(old_props)):
        required = name in new_req
        kind = ChangeClass.BREAKING if required else ChangeClass.REVIEW
        label = "required" if required else "optional"
        yield Change(
            kind, subject, f"{label} parameter {name!r} added", after=_short(new_props[name])
        )
    for name in sorted(set(old_props) & set(new_props)):
        yield from _one_parameter(subject, name, old_props[name], new_props[name])
        if (name in old_req) != (name in new_req):
            now = "required" if name in new_req else "optional"
            yield Change(ChangeClass.BREAKING, subject, f"parameter {name!r} is now {now}")
    rest_old = {k: v for k, v in old.items() if k not in ("properties", "required")}
    rest_new = {k: v for k, v in new.items() if k not in ("properties", "required")}
    if rest_old != rest_new:
        yield Change(
            ChangeClass.REVIEW, subject, "schema changed", _short(rest_old), _short(rest_new)
        )


def _one_parameter(subject: str, name: str, old: Any, new: Any) -> Iterator[Change]:
    if old == new:
        return
    if _type_part(old) != _type_part(new):
        yield Change(
            ChangeClass.BREAKING,
            subject,
            f"parameter {name!r} type changed",
            _short(_type_part(old)),
            _short(_type_part(new)),
        )
        return
    yield Change(
        ChangeClass.REVIEW,
        subject,
        f"parameter {name!r} description changed",
        _short(old),
        _short(new),
    )
