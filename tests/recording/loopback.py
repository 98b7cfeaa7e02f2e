"""The HTTP part the provider-speaking loopback servers share: a threaded server on a free
loopback port that hands each POST to a ``respond`` function and sends what it returns."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# (path, headers, JSON body) -> (status, content type, payload)
Respond = Callable[[str, Any, dict[str, Any]], tuple[int, str, bytes]]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        status, content_type, payload = self.server.respond(self.path, self.headers, body)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    respond: Respond


@contextmanager
def serving(make: Callable[[int], Respond]) -> Iterator[int]:
    """A running server on a free loopback port, answering with ``make(port)``; stopped (and
    its port closed) on exit."""
    server = _Server(("127.0.0.1", 0), _Handler)
    port = server.server_address[1]
    server.respond = make(port)
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield port
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@dataclass
class Provider:
    """What a loopback provider was sent: each request body and each value of the header
    that carries the credential, in order."""

    port: int
    base_path: str = ""
    bodies: list[dict[str, Any]] = field(default_factory=list)
    credentials: list[str] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.base_path}"


Answer = Callable[[int, dict[str, Any]], Any]


@contextmanager
def provider_server(
    *,
    path: str,
    base_path: str = "",
    credential_header: str,
    answer: Answer,
    events: Callable[[int, dict[str, Any]], bytes],
) -> Iterator[Provider]:
    """A server speaking one provider's API at ``path`` below ``base_path``: each body and
    ``credential_header`` kept, ``answer(n, body)`` as JSON or ``events(n, body)`` when the
    request asks for a stream, for the n-th request."""
    providers: list[Provider] = []

    def respond(where: str, headers: Any, body: dict[str, Any]) -> tuple[int, str, bytes]:
        provider = providers[0]
        provider.bodies.append(body)
        provider.credentials.append(headers.get(credential_header, ""))
        number = len(provider.bodies)
        if where != path:
            return 404, "application/json", b"{}"
        if body.get("stream"):
            return 200, "text/event-stream", events(number, body)
        return 200, "application/json", json.dumps(answer(number, body)).encode()

    def make(port: int) -> Respond:
        providers.append(Provider(port, base_path))
        return respond

    with serving(make):
        yield providers[0]
