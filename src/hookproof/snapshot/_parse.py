"""``parse``: a rendered snapshot read back into the RequestView it was rendered from, and
a clear SnapshotFormatError for a file this hookproof cannot read."""

from __future__ import annotations

import json
import re
from typing import Any

from hookproof.errors import SnapshotFormatError, UsageError
from hookproof.requests import Sender
from hookproof.snapshot._request_view import (
    FORMAT_VERSION,
    NONE,
    PROVENANCE_FORMAT,
    UNNAMED,
    ProvenanceView,
    RequestView,
    ToolView,
    is_text,
    tool_name,
)
from hookproof.snapshot.files import HEADER

__all__ = ["check_version", "parse"]

_READABLE = (1, 2, 3)
_HEADER_PATTERN = re.compile(rf"^{re.escape(HEADER)}(\d+)$")
_SCALARS = ("model", "tool_choice", "response_format", "settings")


def _format_error(source: str, problem: str) -> SnapshotFormatError:
    return SnapshotFormatError(
        f"hookproof: {source} is not a readable hookproof snapshot: {problem}. Regenerate it "
        "with `pytest --snapshot-update` (or delete it and run the tests again).",
        problem,
    )


def check_version(text: str, source: str) -> int:
    """The format of ``text``; SnapshotFormatError unless this hookproof reads it."""
    first = text.split("\n", 1)[0]
    match = _HEADER_PATTERN.match(first)
    if match is None:
        raise _format_error(source, _not_a_header(text, first))
    version = int(match.group(1)) if len(match.group(1)) < 6 else -1
    if version not in _READABLE:
        raise _format_error(
            source,
            f"it was written in format {match.group(1)[:12]}, this hookproof reads formats "
            f"{', '.join(map(str, _READABLE[:-1]))} and {_READABLE[-1]}",
        )
    return version


def _not_a_header(text: str, first: str) -> str:
    """What is wrong with a file that does not start with the header, plainly."""
    if not text:
        return "it is empty (0 bytes), so it holds no reviewed request"
    if not text.strip():
        return f"it holds only whitespace ({len(text)} characters), no reviewed request"
    if HEADER.startswith(first.rstrip()) and first.strip():
        return f"it ends inside its header ({first[:60]!r}): it is truncated"
    return f"its first line is {first[:60]!r}"


class _Lines:
    def __init__(self, text: str, source: str) -> None:
        self.lines = text.rstrip("\n").split("\n")
        self.index = 1
        self.source = source

    def take(self, prefix: str) -> str:
        expected = f"a line starting with {prefix!r}" if prefix else "a blank line"
        if self.index >= len(self.lines):
            problem = f"it ends after line {self.index}, where {expected} should follow"
            raise _format_error(self.source, f"{problem} (is it truncated?)")
        line = self.lines[self.index]
        if not line.startswith(prefix) or (not prefix and line):
            raise _format_error(self.source, f"line {self.index + 1} should be {expected}")
        self.index += 1
        return line[len(prefix) :]

    def block(self, indent: str) -> list[str]:
        taken: list[str] = []
        while self.index < len(self.lines) and self.lines[self.index].startswith(indent):
            taken.append(self.lines[self.index][len(indent) :])
            self.index += 1
        return taken

    def json(self, prefix: str) -> Any:
        raw = self.take(prefix)
        try:
            return _json(raw)
        except ValueError as error:
            raise _format_error(
                self.source, f"{prefix.strip()} holds invalid JSON ({error})"
            ) from None


def _json(raw: str) -> Any:
    """json.loads, with its RecursionError (deep nesting) and integer-size ValueError as
    ValueErrors that say what was wrong."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # only the digit limit of int() gets here
        raise ValueError("a number has too many digits") from None


def _section(lines: _Lines, name: str) -> tuple[str, ...]:
    lines.take(f"{name}:")
    body = lines.block("  ")
    lines.take("")
    return () if body == [NONE] else tuple(body)


def _parse_tool(lines: _Lines) -> ToolView:
    name = lines.take("  ")
    lines.take("    description:")
    description = "\n".join(_bars(lines))
    lines.take("    parameters:")
    if not name:
        raise _format_error(lines.source, f"the tool at line {lines.index} has no name")
    try:
        parameters = _json("\n".join(_bars(lines)))
    except ValueError as error:
        raise _format_error(
            lines.source, f"tool {name!r} has invalid parameters ({error})"
        ) from None
    if not isinstance(parameters, dict):
        raise _format_error(lines.source, f"tool {name!r} parameters are not a JSON object")
    return ToolView(name, description, parameters)


def _parse_tools(lines: _Lines, count: int) -> tuple[ToolView, ...]:
    """The tools, each name once: a request cannot show the model two tools with one name,
    and a diff pairs tools by name, so a repeated one would hide a change."""
    tools: list[ToolView] = []
    first_line: dict[str, int] = {}
    for _ in range(count):
        line = lines.index + 1
        tool = _parse_tool(lines)
        if tool.name in first_line:
            raise _format_error(
                lines.source,
                f"tool {tool.name!r} is listed twice (lines {first_line[tool.name]} and {line})",
            )
        first_line[tool.name] = line
        tools.append(tool)
    return tuple(tools)


def _bars(lines: _Lines) -> list[str]:
    """Text lines written as ``| text`` (or a bare ``|`` for an empty line)."""
    return [line[1:] if line.startswith(" ") else line for line in lines.block("    |")]


def _tool_count(lines: _Lines) -> int:
    raw = lines.take("tools: ")
    if not (raw.isascii() and raw.isdecimal()):
        raise _format_error(lines.source, f"the tool count {raw!r} is not a number")
    if len(raw) > _MAX_COUNT_DIGITS:  # int() would refuse it with a bare ValueError
        raise _format_error(
            lines.source, f"the tool count ({len(raw)} digits) is too large; is it corrupted?"
        )
    return int(raw)


_MAX_COUNT_DIGITS = 4_000  # below the 4,300 digits int() reads by default


def parse(text: str, *, source: str = "snapshot") -> RequestView:
    """Read a rendered snapshot back into the RequestView it was rendered from."""
    if not isinstance(text, str):
        raise UsageError(
            f"hookproof: parse takes the snapshot's text (a str), got {type(text).__name__}. "
            "Read the file first: parse(path.read_text(encoding='utf-8'))."
        )
    version = check_version(text, source)
    lines = _Lines(text, source)
    scalars = {"model": lines.json("model: ")}
    sender = _sender(lines) if version == FORMAT_VERSION else None
    scalars.update({name: lines.json(f"{name}: ") for name in _SCALARS[1:]})
    lines.take("")
    system = _section(lines, "system")
    messages = _section(lines, "messages")
    tools = _parse_tools(lines, _tool_count(lines))
    texts = sum(1 for line in system if is_text(line))
    provenance = _parse_provenance(lines, texts) if _has_provenance(lines, version) else None
    if lines.index != len(lines.lines):
        if version < 2 and lines.lines[lines.index + 1 : lines.index + 2] == ["provenance:"]:
            raise _format_error(
                source, "it has a provenance section, which needs format 2 (its header says 1)"
            )
        raise _format_error(source, f"unexpected text at line {lines.index + 1}")
    # Its last line is provenance (or a tool's), which reads the same cut short: only its
    # line break, always written, tells that it was not.
    if version >= PROVENANCE_FORMAT and not text.endswith("\n"):
        last = text.rsplit("\n", 1)[-1]
        raise _format_error(source, f"its last line {last[-40:]!r} has no line break: truncated?")
    return RequestView(
        sender=sender,
        model=scalars["model"],
        tool_choice=scalars["tool_choice"],
        response_format=scalars["response_format"],
        settings=scalars["settings"],
        system=system,
        messages=messages,
        tools=tools,
        provenance=provenance,
    )


_SECTION = re.compile(r"system (\d{1,6})(?:-(\d{1,6}))?: (.+)")
_NONE_LINE = f"  {NONE}"
_SENDER = re.compile(r"(.+) \(depth ([1-9]\d{0,5})\)")


def _has_provenance(lines: _Lines, version: int) -> bool:
    """Formats 2 and 3 always have the section, so a file cut before it is caught; format 3
    writes ``(none)`` in it for a request without provenance."""
    if version == FORMAT_VERSION and lines.lines[lines.index + 1 :] == ["provenance:", _NONE_LINE]:
        lines.index = len(lines.lines)
        return False
    return version >= PROVENANCE_FORMAT


def _sender(lines: _Lines) -> Sender:
    """``agent: researcher (depth 1)``, the line format 3 adds for a subagent's request."""
    raw = lines.take("agent: ")
    match = _SENDER.fullmatch(raw)
    if match is None:
        raise _format_error(
            lines.source, f"line {lines.index} should be `agent: NAME (depth N)`, N from 1"
        )
    name = match.group(1)
    if name == UNNAMED:
        return Sender(None, int(match.group(2)))
    if name.startswith('"'):
        try:
            name = json.loads(name)
        except ValueError:
            raise _format_error(lines.source, "its agent line has a badly quoted name") from None
        if not isinstance(name, str):
            raise _format_error(lines.source, "its agent line has a badly quoted name")
    return Sender(name, int(match.group(2)))


def _parse_provenance(lines: _Lines, system_lines: int) -> ProvenanceView | None:
    """Format 2 is written only for a request with provenance: a file of that format
    without the section, or with an empty one, was cut off."""
    if lines.index == len(lines.lines):
        problem = "it is in format 2 but ends before its provenance section"
        raise _format_error(lines.source, f"{problem} (is it truncated?)")
    lines.take("")
    lines.take("provenance:")
    if lines.index == len(lines.lines):
        raise _format_error(lines.source, "its provenance section is empty (is it truncated?)")
    origins: list[str] = []
    tools: dict[str, str] = {}
    for offset, line in enumerate(lines.block("  ")):
        where = f"provenance line {offset + 1}"
        if line.startswith("tool "):
            name, events = _provenance_tool(line[5:], lines.source, where)
            if name in tools:
                raise _format_error(lines.source, f"{where} names tool {name} a second time")
            tools[name] = events
            continue
        match = _SECTION.fullmatch(line)
        first = int(match.group(1)) if match else 0
        if match is None or first != len(origins) + 1:
            raise _format_error(lines.source, f"{where} should be `system FIRST-LAST: origin`")
        origins += [match.group(3)] * (int(match.group(2) or first) - first + 1)
    if origins and len(origins) != system_lines:
        raise _format_error(
            lines.source,
            f"provenance covers {len(origins)} system lines, the system section has "
            f"{system_lines} text lines",
        )
    return ProvenanceView(tuple(origins), tools)


def _provenance_tool(text: str, source: str, where: str) -> tuple[str, str]:
    if text.startswith('"'):
        try:
            name, end = json.JSONDecoder().raw_decode(text)
        except ValueError:
            raise _format_error(source, f"{where} has a badly quoted tool name") from None
        rest = text[end:]
        name = tool_name(str(name))
    else:
        name, colon, events = text.partition(": ")
        rest = colon + events
    if not rest.startswith(": ") or not name:
        raise _format_error(source, f"{where} should be `tool NAME: history`")
    return name, rest[2:]
