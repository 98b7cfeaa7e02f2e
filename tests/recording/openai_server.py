"""A loopback server speaking OpenAI's chat-completions API, for recording through the real
``langchain_openai.ChatOpenAI``.

It answers from the request alone, so a changed prompt gets a changed answer: with tools
and no tool result yet, it calls the first tool with its first parameter set to the last
user text;
otherwise it replies ``echo: <last message's text>``. ``"stream": true`` gets server-sent
events, one chunk per word (and a usage chunk when ``stream_options.include_usage``). Every
request body and Authorization header is kept, in order.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from typing import Any

from tests.recording.loopback import Provider, provider_server

MODEL = "gpt-loopback"


def _text(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content)
    return str(content)


def _answer(body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The reply's text and tool calls (OpenAI's shape)."""
    messages = body.get("messages", [])
    users = [m for m in messages if m.get("role") == "user"]
    tools = body.get("tools") or []
    if tools and not any(m.get("role") == "tool" for m in messages):
        function = tools[0]["function"]
        properties = list((function.get("parameters") or {}).get("properties") or ["text"])
        args = json.dumps({properties[0]: _text(users[-1]) if users else ""})
        name = function["name"]
        call = {"id": "call_1", "type": "function", "function": {"name": name, "arguments": args}}
        return "", [call]
    return f"echo: {_text(messages[-1]) if messages else ''}", []


def _usage(body: dict[str, Any], text: str) -> dict[str, int]:
    prompt, completion = len(body.get("messages", [])), len(text.split()) + 1
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _completion(number: int, body: dict[str, Any]) -> dict[str, Any]:
    text, calls = _answer(body)
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = calls
    reason = "tool_calls" if calls else "stop"
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": 1767225600,
        "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": reason}],
        "usage": _usage(body, text),
    }


def _chunk(number: int, delta: dict[str, Any], reason: str | None) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion.chunk",
        "created": 1767225600,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]
        if delta or reason
        else [],
    }


def _events(number: int, body: dict[str, Any]) -> bytes:
    text, calls = _answer(body)
    chunks = [_chunk(number, {"role": "assistant", "content": ""}, None)]
    words = text.split(" ")
    chunks += [
        _chunk(number, {"content": word if i == 0 else f" {word}"}, None)
        for i, word in enumerate(words)
        if text
    ]
    chunks += [
        _chunk(number, {"tool_calls": [{"index": i, **call}]}, None) for i, call in enumerate(calls)
    ]
    chunks.append(_chunk(number, {}, "tool_calls" if calls else "stop"))
    if (body.get("stream_options") or {}).get("include_usage"):
        chunks.append({**_chunk(number, {}, None), "usage": _usage(body, text)})
    lines = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks] + ["data: [DONE]\n\n"]
    return "".join(lines).encode()


def openai_server() -> AbstractContextManager[Provider]:
    """A running server on a free loopback port; stopped (and its port closed) on exit."""
    return provider_server(
        path="/v1/chat/completions",
        base_path="/v1",
        credential_header="Authorization",
        answer=_completion,
        events=_events,
    )
