"""A real ``redis-server`` on a free loopback port, started for the tests that share examples.

It keeps nothing on disk (``--save '' --appendonly no``). Where the server is not installed
the tests that need it skip, saying so; under CI (``CI`` set) they fail instead, since
``.ci/run`` installs it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must run these tests (.ci/run installs redis-server)")
    pytest.skip(reason)


def need_redis_client() -> None:
    """The redis client comes with hookproof's ``redis`` extra, not with ``test``."""
    if importlib.util.find_spec("redis") is None:
        _unavailable("the redis client is not installed (pip install 'hookproof[redis]')")


@pytest.fixture
def redis_url() -> Iterator[str]:
    """The URL of a fresh, empty redis-server that stops with the test."""
    need_redis_client()
    executable = shutil.which("redis-server")
    if executable is None:
        _unavailable("redis-server is not installed (apt-get install redis-server)")
    assert executable is not None
    port = _free_port()
    command = [executable, "--port", str(port), "--bind", "127.0.0.1"]
    command += ["--save", "", "--appendonly", "no"]
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as server:
        try:
            deadline = time.monotonic() + 10
            while not _answers_ping(port):
                if server.poll() is not None or time.monotonic() > deadline:
                    _unavailable(f"redis-server did not start on port {port}")
                time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            server.terminate()
            server.wait(timeout=10)
