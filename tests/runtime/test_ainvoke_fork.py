"""A process forked after an ainvoke() runs its own ainvoke() on helper threads of its own:
it inherits none of the parent's threads, and no wake-up crosses between the processes."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import warnings
from typing import Any

import pytest

from hookproof.models import ScriptedModel
from hookproof.runtime import create_agent
from tests.runtime.test_ainvoke_threads import HI, Places, SyncWrap, lookup_noting, turn_noting

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def agent() -> Any:
    places = Places()
    return create_agent(
        ScriptedModel(turn_noting(places)),
        [lookup_noting(places)],
        middleware=[SyncWrap(places, "w")],
    )


def shown(result: Any) -> Any:
    return result.messages, result.trace, result.final_requests


def child_status(built: Any, expected: Any) -> int:
    """The exit status of a forked child that runs ``built`` once (killed after 15 s, which
    only a hang takes, however busy the machine): 0 when its run showed ``expected``."""
    with warnings.catch_warnings():  # fork() in a process with threads warns on 3.12+
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports by its exit status only
        signal.alarm(15)
        try:
            ok = shown(asyncio.run(built.ainvoke(HI))) == expected
        except BaseException:  # noqa: BLE001 - anything but the answer is a failure
            ok = False
        sys.stdout.flush()
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    return status


def test_a_forked_child_runs_ainvoke_and_the_parent_goes_on() -> None:
    built = agent()
    parents = shown(asyncio.run(built.ainvoke(HI)))  # the parent has an idle helper now
    assert child_status(built, parents) == 0
    assert asyncio.run(built.ainvoke(HI)).text == "done"  # no ring of the child reached it


# Its parent's idle helper reads the child's wake-up, finds no job and dies (the warning).
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_child_that_kept_the_parents_helpers_would_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: a child that forgets nothing waits for a thread it lacks."""
    from hookproof._engine import workers

    built = agent()
    parents = shown(asyncio.run(built.ainvoke(HI)))
    with monkeypatch.context() as patched:
        patched.setattr(workers._Workers, "forget", lambda self: [])
        patched.setattr(workers, "_HERE", workers.threading.local())  # the child's own bell
        status = child_status(built, parents)
    workers._WORKERS.forget()  # the parent's helper that read the child's ring is gone
    assert status != 0
    assert asyncio.run(built.ainvoke(HI)).text == "done"  # the parent, on a new helper
