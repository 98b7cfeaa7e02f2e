"""A loopback server that keeps one request's comments as GitHub and GitLab keep them, and
the fixture that starts it."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar
from urllib.parse import urlsplit

import pytest


class ForgeServer(ThreadingHTTPServer):
    """Comments of one request, kept as GitHub and GitLab keep them: listed by pages, created
    by POST, edited by id. ``calls`` logs (method, path, auth header)."""

    comments: list[dict[str, Any]]
    calls: list[tuple[str, str, str]]
    fail_with: int | None = None


class ForgeHandler(BaseHTTPRequestHandler):
    server: ForgeServer
    AUTH: ClassVar = ("Authorization", "PRIVATE-TOKEN")

    def _answer(self, code: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _handle(self) -> None:
        auth = next((self.headers[h] for h in self.AUTH if self.headers.get(h)), "")
        self.server.calls.append((self.command, self.path, auth))
        if self.server.fail_with:
            self._answer(self.server.fail_with, {"message": "no"})
            return
        url = urlsplit(self.path)
        if self.command == "GET":
            page = int(dict(p.split("=") for p in url.query.split("&"))["page"])
            self._answer(200, self.server.comments[(page - 1) * 100 : page * 100])
            return
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["body"]
        if self.command == "POST":
            comment = {"id": 1000 + len(self.server.comments), "body": body}
            self.server.comments.append(comment)
            self._answer(201, comment)
            return
        number = int(url.path.rsplit("/", 1)[1])
        comment = next(c for c in self.server.comments if c["id"] == number)
        comment["body"] = body
        self._answer(200, comment)

    do_GET = do_POST = do_PATCH = do_PUT = _handle

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def forge() -> Iterator[ForgeServer]:
    server = ForgeServer(("127.0.0.1", 0), ForgeHandler)
    server.comments, server.calls = [], []
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
