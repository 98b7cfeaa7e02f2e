"""A loopback server speaking Anthropic's messages API, for recording through the real
``langchain_anthropic.ChatAnthropic``.

It answers from the request alone, as ``openai_server`` does: with tools and no tool result
yet, it calls the first tool with its first parameter set to the last user text; otherwise it
replies ``echo: <last message's text>``. ``"stream": true`` gets Anthropic's server-sent
events (message_start, one text delta per word or the tool input as JSON deltas,
message_delta with the usage, message_stop). Every request body and x-api-key header is kept,
in order.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from typing import Any

from tests.recording.loopback import Provider, provider_server

MODEL = "claude-loopback"


def _text(content: Any) -> str:
    """The text of a message's content: its text blocks, and a tool result's content."""
    if isinstance(content, list):
        return " ".join(_part_text(part) for part in content if isinstance(part, dict))
    return str(content or "")


def _part_text(part: dict[str, Any]) -> str:
    return _text(part.get("content")) if part.get("type") == "tool_result" else part.get("text", "")


def _has_tool_result(messages: list[dict[str, Any]]) -> bool:
    return any(
        isinstance(m.get("content"), list)
        and any(part.get("type") == "tool_result" for part in m["content"])
        for m in messages
    )


def _answer(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The reply's content blocks (Anthropic's shape)."""
    messages = body.get("messages", [])
    tools = body.get("tools") or []
    if tools and not _has_tool_result(messages):
        users = [m for m in messages if m.get("role") == "user"]
        properties = list((tools[0].get("input_schema") or {}).get("properties") or ["text"])
        arguments = {properties[0]: _text(users[-1]["content"]) if users else ""}
        return [{"type": "tool_use", "id": "toolu_1", "name": tools[0]["name"], "input": arguments}]
    last = _text(messages[-1]["content"]) if messages else ""
    return [{"type": "text", "text": f"echo: {last}"}]


def _usage(body: dict[str, Any], blocks: list[dict[str, Any]]) -> dict[str, int]:
    words = sum(len(block.get("text", "").split()) for block in blocks)
    return {"input_tokens": len(body.get("messages", [])), "output_tokens": words + 1}


def _stop_reason(blocks: list[dict[str, Any]]) -> str:
    return "tool_use" if any(block["type"] == "tool_use" for block in blocks) else "end_turn"


def _message(number: int, body: dict[str, Any]) -> dict[str, Any]:
    blocks = _answer(body)
    return {
        "id": f"msg_{number}",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": blocks,
        "stop_reason": _stop_reason(blocks),
        "stop_sequence": None,
        "usage": _usage(body, blocks),
    }


def _block_events(index: int, block: dict[str, Any]) -> list[dict[str, Any]]:
    if block["type"] == "tool_use":
        start = {**block, "input": {}}
        deltas = [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])}]
    else:
        start = {"type": "text", "text": ""}
        words = block["text"].split(" ")
        deltas = [
            {"type": "text_delta", "text": word if i == 0 else f" {word}"}
            for i, word in enumerate(words)
        ]
    return [
        {"type": "content_block_start", "index": index, "content_block": start},
        *({"type": "content_block_delta", "index": index, "delta": d} for d in deltas),
        {"type": "content_block_stop", "index": index},
    ]


def _events(number: int, body: dict[str, Any]) -> bytes:
    whole = _message(number, body)
    start = {**whole, "content": [], "stop_reason": None, "usage": {**whole["usage"]}}
    start["usage"]["output_tokens"] = 1
    events = [{"type": "message_start", "message": start}]
    for index, block in enumerate(whole["content"]):
        events += _block_events(index, block)
    delta = {"stop_reason": whole["stop_reason"], "stop_sequence": None}
    events.append({"type": "message_delta", "delta": delta, "usage": whole["usage"]})
    events.append({"type": "message_stop"})
    lines = [f"event: {event['type']}\ndata: {json.dumps(event)}\n\n" for event in events]
    return "".join(lines).encode()


def anthropic_server() -> AbstractContextManager[Provider]:
    """A running server on a free loopback port; stopped (and its port closed) on exit."""
    return provider_server(
        path="/v1/messages",
        credential_header="x-api-key",
        answer=_message,
        events=_events,
    )
