"""The semantic diff of two final requests, each change classified.

BREAKING  a tool removed; a parameter removed or retyped; a parameter's requiredness changed
          (a new required parameter included).
SECURITY  a tool visible now that was not before.
REVIEW    prompt, description, message, tool_choice, settings or model text changed; or
          another agent sent the request (subject ``agent``: a subagent now, the main agent
          now, or another subagent).
COSMETIC  the same change up to whitespace; or only the provenance changed (which layer
          registered, added, changed or removed a tool, or wrote a prompt line), what the
          model receives being the same (subject ``provenance``); or the same request written
          differently (a file edited by hand).

A difference no rule reads (a ``required`` list reordered, ``properties`` that is not an
object, tools listed out of order) is still a change: REVIEW (BREAKING when it changes whether
a name is required, or leaves the parameters unreadable). Two snapshots that differ never diff
as empty.

Where the snapshots carry provenance, each change says where it comes from: the new side's
history of a tool ("registered by FilesystemMiddleware"), the layer that removed one, or the
origin of the system-prompt lines a hunk touches.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from hookproof._support.line_match import LineMatcher
from hookproof.errors import UsageError
from hookproof.requests import FinalRequest
from hookproof.snapshot._change import Change, ChangeClass, SnapshotDiff
from hookproof.snapshot._change import short as _short
from hookproof.snapshot._parse import parse
from hookproof.snapshot._provenance_diff import provenance_changes
from hookproof.snapshot._request_view import RequestView, ToolView, origin_of
from hookproof.snapshot._undescribed import SCALARS, sender_changes, text_changes, undescribed
from hookproof.snapshot._undescribed import first_by_name as _by_name
from hookproof.snapshot._view import view

__all__ = ["Change", "ChangeClass", "SnapshotDiff", "diff"]


_SEVERITY = {ChangeClass.BREAKING: 0, ChangeClass.SECURITY: 1, ChangeClass.REVIEW: 2}
_DESCRIPTIVE_KEYS = frozenset({"description", "title", "default", "examples"})


def _squash(text: str) -> str:
    return " ".join(text.split())


def _text_kind(before: str, after: str) -> ChangeClass:
    return ChangeClass.COSMETIC if _squash(before) == _squash(after) else ChangeClass.REVIEW


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
    """Classify every change from ``old`` to ``new`` (see the module docstring). Two snapshots
    that differ always have a change: a difference no rule reads is still described."""
    before, after = _as_view(old, "old"), _as_view(new, "new")
    changes = [
        *_scalar_changes(before, after),
        *sender_changes(before, after),
        *_system_changes(before, after),
        *_line_changes("messages", before.messages, after.messages),
        *_tool_changes(before, after),
        *provenance_changes(before, after),
    ]
    changes += undescribed(before, after, changes)
    if not changes and isinstance(old, str) and isinstance(new, str):
        changes += text_changes(old, new, before, after)
    order = sorted(changes, key=lambda change: _SEVERITY.get(change.kind, 3))
    return SnapshotDiff(tuple(order))


def _scalar_changes(before: RequestView, after: RequestView) -> Iterator[Change]:
    for name in SCALARS:
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
    old_origins = before.provenance and before.provenance.line_origins(before.system)
    new_origins = after.provenance and after.provenance.line_origins(after.system)

    def origin(hunk: Hunk) -> str | None:
        tag, i1, i2, j1, j2 = hunk
        was = old_origins and origin_of(old_origins, i1, i2)
        now = new_origins and origin_of(new_origins, j1, j2)
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
    yield from _shape_changes(subject, old, new, set(old_props) | set(new_props))
    rest_old = {k: v for k, v in old.items() if k not in ("properties", "required")}
    rest_new = {k: v for k, v in new.items() if k not in ("properties", "required")}
    if rest_old != rest_new:
        yield Change(
            ChangeClass.REVIEW, subject, "schema changed", _short(rest_old), _short(rest_new)
        )


def _shape_changes(
    subject: str, old: Mapping[str, Any], new: Mapping[str, Any], names: set[str]
) -> Iterator[Change]:
    """What the per-parameter rules cannot read: ``properties`` that is not an object, and a
    ``required`` list changed beyond the requiredness of known parameters (its order,
    repeats, names no property has)."""
    was, now = old.get("properties"), new.get("properties")
    if was != now and not (_is_object(was) and _is_object(now)):
        kind = ChangeClass.BREAKING if _properties(old) else ChangeClass.REVIEW
        yield Change(kind, subject, "properties changed", _short(was), _short(now))
    was, now = old.get("required"), new.get("required")
    if was != now and not _said_per_parameter(was, now, names):
        moved = (_required(old) ^ _required(new)) - names
        kind = ChangeClass.BREAKING if moved else ChangeClass.REVIEW
        yield Change(kind, subject, "required list changed", _short(was), _short(now))


def _is_object(value: Any) -> bool:
    return value is None or isinstance(value, Mapping)


def _said_per_parameter(was: Any, now: Any, names: set[str]) -> bool:
    """The required lists differ only in which known parameters they name, each one's change
    reported on its own: both lists of distinct names, the shared names in the same order."""
    if not (_name_list(was) and _name_list(now)):
        return False
    old, new = was or [], now or []
    moved = set(old) ^ set(new)
    kept = [name for name in old if name in new] == [name for name in new if name in old]
    return bool(moved) and moved <= names and kept


def _name_list(value: Any) -> bool:
    if value is None:
        return True
    names = value if isinstance(value, list) else None
    return (
        names is not None
        and all(isinstance(item, str) for item in names)
        and (len(set(names)) == len(names))
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
