"""Helper threads wake each other through pipes only while pipes are to spare: many runs
blocked in sync wrap hooks at once, under a low file-descriptor limit, all finish, and the
bells never hold more than ``MAX_PIPE_BELLS`` pipes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import hookproof

SRC = str(Path(hookproof.__file__).resolve().parents[1])

BLOCKED_AT_ONCE = """
import asyncio, os, resource, threading
from hookproof._engine import workers
from hookproof.models import ScriptedModel
from hookproof.runtime import AgentMiddleware, create_agent

RUNS = 100
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(128, hard), hard))
together = threading.Barrier(RUNS, timeout=30)
most_pipes = []

class Blocking(AgentMiddleware):
    def wrap_model_call(self, request, handler):
        together.wait()  # every run is inside its hook at once
        most_pipes.append(workers._PIPES.open)
        return handler(request)

async def main():
    agents = [
        create_agent(ScriptedModel(["done"]), [], middleware=[Blocking()]) for _ in range(RUNS)
    ]
    results = await asyncio.gather(
        *(agent.ainvoke({"messages": [("user", "hi")]}) for agent in agents),
        return_exceptions=True,
    )
    failed = [repr(r) for r in results if isinstance(r, BaseException)]
    print("FAILED", len(failed), failed[:2])
    print("MOST PIPES", max(most_pipes), "LIMIT", workers.MAX_PIPE_BELLS)

asyncio.run(main())
"""


@pytest.mark.skipif(not hasattr(os, "pipe") or sys.platform == "win32", reason="needs rlimits")
def test_a_hundred_runs_blocked_in_sync_hooks_under_128_descriptors_all_finish() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(BLOCKED_AT_ONCE)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "FAILED 0 []" in done.stdout, done.stdout[-2000:]
    most, limit = done.stdout.split("MOST PIPES ")[1].split(" LIMIT ")
    assert 0 < int(most) <= int(limit)
    assert "Exception ignored" not in done.stderr, done.stderr[-2000:]


def test_a_bell_is_a_lock_when_no_pipe_can_be_opened(monkeypatch: pytest.MonkeyPatch) -> None:
    from hookproof._engine import workers

    def no_pipe() -> tuple[int, int]:
        raise OSError(24, "Too many open files")

    before = workers._PIPES.open
    monkeypatch.setattr(os, "pipe", no_pipe)
    assert isinstance(workers._new_bell(), workers._LockBell)
    assert workers._PIPES.open == before  # the failed pipe is not counted


def test_past_the_limit_bells_are_locks(monkeypatch: pytest.MonkeyPatch) -> None:
    from hookproof._engine import workers

    monkeypatch.setattr(workers, "MAX_PIPE_BELLS", workers._PIPES.open + 1)
    first, second = workers._new_bell(), workers._new_bell()
    assert isinstance(first, workers._PipeBell) and isinstance(second, workers._LockBell)
    first.close()
    first.close()  # a second close changes nothing
    assert isinstance(workers._new_bell(), workers._PipeBell)  # the closed pipe's place is free


def test_a_pipe_closed_at_shutdown_needs_none_of_its_modules_globals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At interpreter shutdown a module's underscored globals are set to None before the
    objects they hold die: a bell closed then still counts itself out, and says nothing."""
    from hookproof._engine import workers

    bell = workers._new_bell()
    assert isinstance(bell, workers._PipeBell)
    before = workers._PipeBell.count.open
    monkeypatch.setattr(workers, "_PIPES", None)
    bell.__del__()
    assert workers._PipeBell.count.open == before - 1
