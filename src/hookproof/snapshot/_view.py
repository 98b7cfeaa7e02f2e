"""``view``: a FinalRequest reduced to a RequestView — JSON-able values, secrets redacted by
hookproof.redaction, volatile values normalised, tools sorted by name."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from hookproof._support.frozen import thaw
from hookproof.errors import UsageError
from hookproof.messages import AssistantMessage, ContentBlock, Message, TextBlock, ToolMessage
from hookproof.provenance import AGENT, map_lines
from hookproof.redaction import REDACTED, is_sensitive_field, redact_text
from hookproof.requests import FinalRequest, Sender
from hookproof.snapshot._normalise import DEFAULT_MATCHERS, Matcher, Normaliser
from hookproof.snapshot._request_view import (
    EMPTY_SYSTEM,
    ProvenanceView,
    RequestView,
    ToolView,
    is_text,
    one_line,
    tool_name,
)

__all__ = ["view"]


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
        f" {one_line(_plain(meta, norm))}" if meta else ""
    )
    return [header, *(_text_lines(text, norm) if isinstance(text, str) else [])]


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
    lines = [f"<{message.role}>" + (f" {one_line(meta)}" if meta else "")]
    lines += _content_lines(message, norm)
    if isinstance(message, AssistantMessage):
        for item in message.tool_calls:
            call_id = norm.ident("call", item.id)
            arguments = one_line(_plain(item.args, norm))
            lines.append(f"call {tool_name(item.name)} {call_id} {arguments}")
    return lines


def _system_lines(request: FinalRequest, norm: Normaliser) -> tuple[str, ...]:
    system = request.system_message
    if system is None:
        return ()
    lines = [line for block in system.content for line in _block_lines(block, norm)] or [
        EMPTY_SYSTEM
    ]
    meta = _message_meta(system, norm)
    return tuple(lines + ([f"<metadata> {one_line(meta)}"] if meta else []))


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
    origins = [origin for origin, line in zip(every, system, strict=True) if is_text(line)]
    tools = {tool_name(item.name): _one_line_text(item.describe()) for item in found.tools}
    return ProvenanceView(tuple(_one_line_text(item) for item in origins), tools)


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _one_line_text(text: str) -> str:
    """An origin on one line: a middleware's name is the user's text, and a line break in it
    would read back as another provenance line (a tool the model never saw, say)."""
    return _CONTROL.sub(lambda found: repr(found.group())[1:-1], redact_text(text))


def _subagent(request: FinalRequest) -> Sender | None:
    """The subagent that sent ``request``, its name redacted; None for the main agent."""
    sender = request.sender
    if sender is None or not sender.is_subagent:
        return None
    name = None if sender.name is None else redact_text(sender.name)
    return Sender(name, sender.depth)


def view(
    request: FinalRequest,
    *,
    matchers: Sequence[Matcher] = DEFAULT_MATCHERS,
    normalise_ids: bool = True,
    provenance: bool = True,
) -> RequestView:
    """Reduce a FinalRequest to normalised plain data (see the module docstring); with
    ``provenance`` false, how the request came to be is left out: its provenance and the
    subagent that sent it."""
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
            tool_name(item.name),
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
        sender=_subagent(request) if provenance else None,
    )
