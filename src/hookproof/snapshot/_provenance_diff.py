"""The changes only a snapshot's provenance section shows: the model receives the same, a
layer other than before put it there. Each is COSMETIC, with subject ``provenance``.

A tool the model sees on one side only is left to the tool's own change (BREAKING or SECURITY),
which carries its history as its origin; a system-prompt line whose text changed is left to the
prompt's change, which says where its lines come from. What remains is said here: the history
of every other tool (seen on both sides, or removed on both) and the origin of every prompt line
whose text is the same on both sides.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from hookproof._support.line_match import LineMatcher
from hookproof.snapshot._change import Change, ChangeClass
from hookproof.snapshot._request_view import RequestView

__all__ = ["provenance_changes"]

SUBJECT = "provenance"


def provenance_changes(before: RequestView, after: RequestView) -> Iterator[Change]:
    """Only where both record provenance: a snapshot reviewed before provenance existed
    (format 1) has none to compare, and keeps passing while the model receives the same."""
    if before.provenance is None or after.provenance is None:
        return
    yield from _origin_changes(before, after)
    shown_on_one_side = set(before.tool_names) ^ set(after.tool_names)
    yield from _history_changes(before.provenance.tools, after.provenance.tools, shown_on_one_side)


def _history_changes(
    old: Mapping[str, str], new: Mapping[str, str], skipped: set[str]
) -> Iterator[Change]:
    for name in sorted((old.keys() | new.keys()) - skipped):
        was, now = old.get(name), new.get(name)
        if was != now:
            yield Change(ChangeClass.COSMETIC, SUBJECT, _history(name, was, now), was, now)


def _history(name: str, was: str | None, now: str | None) -> str:
    if was is None:
        return f"tool {name} is now recorded as {now} (not recorded before)"
    if now is None:
        return f"tool {name} is no longer recorded (was {was})"
    return f"tool {name} {was}, now {_without_repeated_verb(was, now)}"


def _without_repeated_verb(was: str, now: str) -> str:
    """``registered by A`` then ``registered by B`` reads "registered by A, now by B"."""
    verb = was.split(" by ", 1)[0]
    single = ";" not in was and ";" not in now
    return now[len(verb) + 1 :] if single and now.startswith(f"{verb} by ") else now


def _origin_changes(before: RequestView, after: RequestView) -> Iterator[Change]:
    """Prompt lines with the same text on both sides whose origin changed, in runs."""
    old_origins, new_origins = _origins(before), _origins(after)
    moved: list[tuple[int, str, str]] = []
    old_text, new_text = tuple(before.system_text), tuple(after.system_text)
    for tag, i1, i2, j1, _ in LineMatcher(old_text, new_text).get_opcodes():
        if tag != "equal":
            continue
        for offset in range(i2 - i1):
            was, now = old_origins.get(i1 + offset), new_origins.get(j1 + offset)
            if was is not None and now is not None and was != now:
                moved.append((j1 + offset + 1, was, now))
    for first, last, was, now in _runs(moved):
        lines = f"line {first}" if first == last else f"lines {first}-{last}"
        what = f"system prompt {lines} from {was}, now from {now}"
        yield Change(ChangeClass.COSMETIC, SUBJECT, what, was, now)


def _origins(request: RequestView) -> dict[int, str]:
    """The origin of each text line of the prompt, by its index among the text lines."""
    assert request.provenance is not None
    return dict(enumerate(request.provenance.system))


def _runs(moved: list[tuple[int, str, str]]) -> Iterator[tuple[int, int, str, str]]:
    """Consecutive lines (numbered from 1) with the same old and new origin, as one run."""
    start = 0
    for index in range(1, len(moved) + 1):
        first, was, now = moved[start]
        ends = index == len(moved)
        if ends or moved[index][1:] != (was, now) or moved[index][0] != moved[index - 1][0] + 1:
            yield first, moved[index - 1][0], was, now
            start = index
