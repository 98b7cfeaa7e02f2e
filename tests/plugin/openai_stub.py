"""A loopback HTTP server that answers like an OpenAI-compatible provider and counts requests.

Enough of ``POST /v1/chat/completions`` for langchain-openai: a completion as JSON, or as a
server-sent-event stream when the request says ``"stream": true``; also ``/v1/completions``
(completion models) and ``/v1/embeddings``, after any path prefix. Anything else gets a 404,
and every request is counted, so "0 requests" means nothing reached the server at all.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPLY = "stub reply"
MODEL = "stub-model"


@dataclass
class StubProvider:
    port: int
    requests: list[str] = field(default_factory=list)
    """``"<METHOD> <path>"`` of every request received, in order."""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def _completion() -> dict[str, Any]:
    message = {"role": "assistant", "content": REPLY}
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3},
    }


def _text_completion() -> dict[str, Any]:
    """``POST /v1/completions``, for completion models (langchain_openai.OpenAI)."""
    choice = {"index": 0, "text": REPLY, "finish_reason": "stop", "logprobs": None}
    return {
        "id": "cmpl-stub",
        "object": "text_completion",
        "created": 0,
        "model": MODEL,
        "choices": [choice],
        "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3},
    }


def _embeddings(body: dict[str, Any]) -> dict[str, Any]:
    """``POST /v1/embeddings``: one fixed vector per input."""
    inputs = body.get("input")
    count = len(inputs) if isinstance(inputs, list) else 1
    data = [{"object": "embedding", "index": i, "embedding": [0.5, 0.25]} for i in range(count)]
    usage = {"prompt_tokens": 1, "total_tokens": 1}
    return {"object": "list", "data": data, "model": MODEL, "usage": usage}


def _chunk(delta: dict[str, Any], finish_reason: str | None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [choice],
    }


def _events() -> bytes:
    chunks = [_chunk({"role": "assistant", "content": REPLY}, None), _chunk({}, "stop")]
    lines = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks] + ["data: [DONE]\n\n"]
    return "".join(lines).encode()


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        self.server.provider.requests.append(f"POST {self.path}")
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        # Any prefix before /v1: a test may give each caller a base URL of its own.
        route = self.path[self.path.find("/v1/") :] if "/v1/" in self.path else self.path
        if route == "/v1/chat/completions" and body.get("stream"):
            self._send(200, "text/event-stream", _events())
        elif route == "/v1/chat/completions":
            self._send(200, "application/json", json.dumps(_completion()).encode())
        elif route == "/v1/completions":
            self._send(200, "application/json", json.dumps(_text_completion()).encode())
        elif route == "/v1/embeddings":
            self._send(200, "application/json", json.dumps(_embeddings(body)).encode())
        else:
            self._send(404, "application/json", b"{}")

    def do_GET(self) -> None:
        self.server.provider.requests.append(f"GET {self.path}")
        self._send(404, "application/json", b"{}")

    def _send(self, status: int, content_type: str, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the test reads ``requests``, not a log."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    provider: StubProvider


@contextmanager
def stub_provider() -> Iterator[StubProvider]:
    """Serve on 127.0.0.1 (a free port) in a thread for the ``with`` block."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.provider = StubProvider(port=server.server_address[1])
    # A short poll interval: shutdown() waits for the serving loop to notice.
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield server.provider
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
