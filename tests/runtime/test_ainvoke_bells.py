"""Where there is no ``select.poll`` (Windows), the threads wake each other through locks
instead of pipes, and every run shows the same."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from tests.runtime.test_ainvoke_threads import STACKS, WAIT_SECONDS, brief_wait, observed


@pytest.fixture
def lock_bells(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """New helper threads, and this thread, ring locks (the idle helpers are set aside)."""
    from hookproof._engine import workers

    monkeypatch.setattr(workers, "_new_bell", workers._LockBell)
    monkeypatch.setattr(workers, "_HERE", threading.local())
    workers._WORKERS.forget()
    yield
    workers._WORKERS.forget()  # later tests start helpers with pipes again


def everything_seen() -> list[object]:
    found = []
    for seconds in (0.0, WAIT_SECONDS):
        with brief_wait(seconds):
            for model, tool_kind in (("scripted", "sync"), ("async", "broken")):
                found += [observed(layers, model, tool_kind, probed=False) for layers in STACKS]
    return found


def test_lock_bells_show_what_pipe_bells_show(request: pytest.FixtureRequest) -> None:
    from hookproof._engine import workers

    with_pipes = everything_seen()
    request.getfixturevalue("lock_bells")
    assert everything_seen() == with_pipes
    helpers = workers._WORKERS._idle
    assert helpers and all(isinstance(helper.bell, workers._LockBell) for helper in helpers)
    assert isinstance(workers._HERE.bell, workers._LockBell)
