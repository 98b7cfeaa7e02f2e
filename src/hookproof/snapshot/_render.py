"""The canonical, readable text of a FinalRequest, and its exact inverse.

``view(request)`` reduces a FinalRequest to a RequestView (JSON-able values, secrets redacted
by hookproof.redaction, volatile values normalised, tools sorted by name); ``render`` writes
a view as text a person reviews in a diff; ``parse`` reads that text back into the same view.
The first line carries the format version, so a file written by another format is recognised
and regenerated, never misread. Format 2 is format 1 plus a closing ``provenance:`` section
(which layer wrote each system-prompt line and registered, added, changed or removed each
tool; see hookproof.provenance); a request without provenance is still written as format 1,
and both are read.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from hookproof._frozen import thaw
from hookproof._snapshot_files import HEADER
from hookproof.errors import SnapshotFormatError, UsageError
from hookproof.messages import AssistantMessage, ContentBlock, Message, TextBlock, ToolMessage
from hookproof.provenance import AGENT, map_lines, runs
from hookproof.redaction import REDACTED, is_sensitive_field, redact_text
from hookproof.snapshot._normalise import DEFAULT_MATCHERS, Matcher, Normaliser
from hookproof.vocabulary import FinalRequest

__all__ = [
    "FORMAT_VERSION",
    "RequestView",
    "SnapshotFormatError",
    "ToolView",
    "content_hash",
    "parse",
    "render",
    "view",
]

FORMAT_VERSION = 2
_PLAIN_FORMAT = 1  # a request without provenance: format 1's text exactly
_READABLE = (1, 2)
_HEADER_PATTERN = re.compile(rf"^{re.escape(HEADER)}(\d+)$")
_SCALARS = ("model", "tool_choice", "response_format", "settings")
_NONE = "(none)"
_EMPTY = "(empty system message)"


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

    def lines_origin(self, system: Sequence[str], first: int, last: int) -> str | None:
        """The origins of lines ``first``..``last`` (0-based, end excluded) of the system
        section ``system``; a block header counts as the text it heads."""
        found = dict.fromkeys(_every_line(self.system, system)[first:last])
        return ", ".join(found) if found else None


def _is_text(line: str) -> bool:
    return line.startswith("| ") or line == "|"


def _every_line(origins: Sequence[str], system: Sequence[str]) -> list[str]:
    """One origin per line of the section: a header or metadata line takes the origin of
    the next text line (of the one before, at the end)."""
    expanded: list[str | None] = []
    texts = iter(origins)
    for line in system:
        expanded.append(next(texts, None) if _is_text(line) else None)
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

    @property
    def tool_names(self) -> list[str]:
        return [item.name for item in self.tools]

    def tool(self, name: str) -> ToolView | None:
        return next((item for item in self.tools if item.name == name), None)

    @property
    def system_text(self) -> list[str]:
        """The system prompt's text lines, without block headers."""
        return [line[2:] for line in self.system if _is_text(line)]


def _one_line(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))


def _pretty(value: Any) -> list[str]:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, indent=2).split("\n")


def _plain(value: Any, norm: Normaliser, fields: bool = True) -> Any:
    """JSON-able data with every string redacted and normalised, and with ``fields`` every
    value under a sensitive key (api_key, authorization, ...) redacted whole: not in a JSON
    schema, whose "password" property describes a field and holds no secret."""
    value = thaw(value)
    if isinstance(value, str):
        return norm.text(redact_text(value))
    if isinstance(value, Mapping):
        return {
            str(key): REDACTED if fields and _secret(key, item) else _plain(item, norm, fields)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [_plain(item, norm, fields) for item in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    if hasattr(value, "model_dump"):
        return _plain(value.model_dump(mode="json"), norm, fields)
    return norm.text(redact_text(repr(value)))


def _secret(key: Any, item: Any) -> bool:
    # None and booleans say whether a credential is set, not what it is.
    return (
        isinstance(key, str)
        and item is not None
        and not isinstance(item, bool)
        and is_sensitive_field(key)
    )


def _visible(text: str) -> str:
    """Carriage returns are shown as \\r: a text-mode read would otherwise drop them."""
    return text.replace("\r", "\\r")


def _text_lines(text: str, norm: Normaliser) -> list[str]:
    """A block's text (system prompt or message), normalised as prose."""
    prose = norm.prose(redact_text(text))
    return [f"| {line}" if line else "|" for line in _visible(prose).split("\n")]


def _block_lines(block: ContentBlock, norm: Normaliser) -> list[str]:
    data = block.model_dump(mode="json", exclude={"type"})
    text = data.pop("text", None)
    if "id" in data:
        data["id"] = norm.ident("id", data["id"])
    meta = {key: value for key, value in data.items() if value not in (None, {}, "")}
    header = f"[{getattr(block, 'type', 'block')}]" + (
        f" {_one_line(_plain(meta, norm))}" if meta else ""
    )
    return [header, *(_text_lines(text, norm) if isinstance(text, str) else [])]


def _needs_quotes(name: str) -> bool:
    return not name or any(char.isspace() for char in name) or name.startswith('"')


def _tool_name(name: str) -> str:
    """Names with spaces or line breaks are shown JSON-quoted, so every name fits one line."""
    return _one_line(name) if _needs_quotes(name) else name


def _message_meta(message: Message, norm: Normaliser) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "id": norm.ident("id", message.id),
        "name": message.name,
        "additional_kwargs": _plain(message.additional_kwargs, norm),
        "response_metadata": _plain(message.response_metadata, norm),
    }
    if isinstance(message, ToolMessage):
        meta["tool_call_id"] = norm.ident("call", message.tool_call_id)
        meta["status"] = message.status
    return {key: value for key, value in meta.items() if value not in (None, {})}


def _content_lines(message: Message, norm: Normaliser) -> list[str]:
    """A lone plain text block is shown as its text alone; anything else block by block."""
    blocks = message.content
    lines = [line for block in blocks for line in _block_lines(block, norm)]
    if len(blocks) == 1 and isinstance(blocks[0], TextBlock) and lines[0] == "[text]":
        return lines[1:]
    return lines


def _message_lines(message: Message, norm: Normaliser) -> list[str]:
    meta = _message_meta(message, norm)
    lines = [f"<{message.role}>" + (f" {_one_line(meta)}" if meta else "")]
    lines += _content_lines(message, norm)
    if isinstance(message, AssistantMessage):
        for item in message.tool_calls:
            call_id = norm.ident("call", item.id)
            name = _one_line(item.name) if _needs_quotes(item.name) else item.name
            lines.append(f"call {name} {call_id} {_one_line(_plain(item.args, norm))}")
    return lines


def _system_lines(request: FinalRequest, norm: Normaliser) -> tuple[str, ...]:
    system = request.system_message
    if system is None:
        return ()
    lines = [line for block in system.content for line in _block_lines(block, norm)] or [_EMPTY]
    meta = _message_meta(system, norm)
    return tuple(lines + ([f"<metadata> {_one_line(meta)}"] if meta else []))


def _provenance_view(request: FinalRequest, system: Sequence[str]) -> ProvenanceView | None:
    found = request.provenance
    if found is None:
        return None
    raw = [] if request.system_message is None else request.system_message.text.split("\n")
    shown = [line[2:] if line.startswith("| ") else "" if line == "|" else line for line in system]
    if raw and len(raw) == len(found.system):
        every = map_lines(raw, found.system, shown)
    else:  # no text lines to follow (e.g. an empty system message): the agent's own
        every = [AGENT] * len(shown)
    origins = [origin for origin, line in zip(every, system, strict=True) if _is_text(line)]
    tools = {_tool_name(item.name): _one_line_text(item.describe()) for item in found.tools}
    return ProvenanceView(tuple(_one_line_text(item) for item in origins), tools)


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _one_line_text(text: str) -> str:
    """An origin on one line: a middleware's name is the user's text, and a line break in it
    would read back as another provenance line (a tool the model never saw, say)."""
    return _CONTROL.sub(lambda found: repr(found.group())[1:-1], redact_text(text))


def view(
    request: FinalRequest,
    *,
    matchers: Sequence[Matcher] = DEFAULT_MATCHERS,
    normalise_ids: bool = True,
    provenance: bool = True,
) -> RequestView:
    """Reduce a FinalRequest to normalised plain data (see the module docstring); with
    ``provenance`` false, its provenance is left out."""
    if not isinstance(request, FinalRequest):
        raise UsageError(
            f"hookproof: a snapshot is taken of a FinalRequest (e.g. recording_model.last), "
            f"not of a {type(request).__name__}."
        )
    norm = Normaliser(matchers=tuple(matchers), normalise_ids=normalise_ids)
    system = _system_lines(request, norm)
    messages = tuple(line for item in request.messages for line in _message_lines(item, norm))
    tools = tuple(
        ToolView(
            _tool_name(item.name),
            _visible(norm.text(redact_text(item.description))),
            _plain(item.parameters, norm, fields=False),
        )
        for item in sorted(request.tools, key=lambda schema: schema.name)
    )
    return RequestView(
        model=redact_text(request.model),
        tool_choice=_plain(request.tool_choice, norm),
        response_format=_plain(request.response_format, norm, fields=False),
        settings=_plain(request.model_settings, norm),
        system=system,
        messages=messages,
        tools=tools,
        provenance=_provenance_view(request, system) if provenance else None,
    )


def _indented(lines: Sequence[str], indent: str) -> list[str]:
    return [f"{indent}{line}" for line in lines] if lines else [f"{indent}{_NONE}"]


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
    lines = [f"{HEADER}{FORMAT_VERSION if shown else _PLAIN_FORMAT}"]
    lines += [
        f"model: {_one_line(data.model)}",
        f"tool_choice: {_one_line(data.tool_choice)}",
        f"response_format: {_one_line(data.response_format)}",
        f"settings: {_one_line(data.settings)}",
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
    return f"{HEADER}{_PLAIN_FORMAT}\n" + (body[: cut + 1] if cut >= 0 else body)


# -- parsing -------------------------------------------------------------------------------


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
            f"{' and '.join(map(str, _READABLE))}",
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
    return () if body == [_NONE] else tuple(body)


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
    scalars = {name: lines.json(f"{name}: ") for name in _SCALARS}
    lines.take("")
    system = _section(lines, "system")
    messages = _section(lines, "messages")
    tools = _parse_tools(lines, _tool_count(lines))
    texts = sum(1 for line in system if _is_text(line))
    provenance = _parse_provenance(lines, texts) if version >= 2 else None
    if lines.index != len(lines.lines):
        if version < 2 and lines.lines[lines.index + 1 : lines.index + 2] == ["provenance:"]:
            raise _format_error(
                source, "it has a provenance section, which needs format 2 (its header says 1)"
            )
        raise _format_error(source, f"unexpected text at line {lines.index + 1}")
    # Its last line is provenance, which reads the same cut short: only its line break,
    # always written, tells that it was not.
    if version >= 2 and not text.endswith("\n"):
        last = text.rsplit("\n", 1)[-1]
        raise _format_error(source, f"its last line {last[-40:]!r} has no line break: truncated?")
    return RequestView(
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
        name = _tool_name(str(name))
    else:
        name, colon, events = text.partition(": ")
        rest = colon + events
    if not rest.startswith(": ") or not name:
        raise _format_error(source, f"{where} should be `tool NAME: history`")
    return name, rest[2:]
