"""The helper threads for synchronous work under asyncio: a sync wrap hook under ainvoke(),
a whole Eino run under ``arun``/``aresume``.

Starting a thread per call costs more CPU than a short run itself; these threads are kept
and reused.
A run never waits for another: when every thread is busy a new one starts (a bounded pool
could deadlock runs that wait on each other), and a thread idle for a while ends.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio
    import queue

__all__ = ["in_thread"]

IDLE_SECONDS = 30.0  # how long an idle thread waits for another run before it ends

Job = Callable[[], Callable[[], None]]  # does the work, returns what hands the result back


class _Workers:
    """Reusable threads, each with its own inbox; the idle ones wait in ``_idle``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[queue.SimpleQueue[Job]] = []

    def submit(self, job: Job) -> None:
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
        if inbox is None:
            import queue  # loaded with the first thread: a synchronous run starts none

            inbox = queue.SimpleQueue()
            thread = threading.Thread(
                target=self._serve, args=(inbox,), name="hookproof-worker", daemon=True
            )
            thread.start()
        inbox.put(job)

    def _serve(self, inbox: queue.SimpleQueue[Job]) -> None:
        while self._serve_one(inbox):
            pass

    def _serve_one(self, inbox: queue.SimpleQueue[Job]) -> bool:
        """One job, or False when the thread has been idle long enough to end. The job and
        its outcome die with this frame: an idle thread keeps nothing of the last run."""
        import queue  # loaded with the first helper thread, not with create_agent

        try:
            job = inbox.get(timeout=IDLE_SECONDS)
        except queue.Empty:
            with self._lock:
                if inbox in self._idle:
                    self._idle.remove(inbox)
                    return False
            return True  # submit() took this inbox just now: its job is on the way
        hand_back = job()
        del job  # its hook, arguments and context: done with
        with self._lock:  # idle before the caller hears back: its next run reuses us
            self._idle.append(inbox)
        hand_back()
        return True


_WORKERS = _Workers()


async def in_thread(func: Callable[..., Any], *args: Any) -> Any:
    """``func(*args)`` on a helper thread, in a copy of the caller's context variables."""
    import asyncio  # loaded already: only a running event loop gets here

    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def job() -> Callable[[], None]:
        try:
            result = context.run(func, *args)
        except BaseException as error:  # noqa: BLE001 - handed to the awaiting coroutine
            return partial(_hand_back, loop, future, None, error)
        return partial(_hand_back, loop, future, result, None)

    _WORKERS.submit(job)
    return await future


def _hand_back(
    loop: asyncio.AbstractEventLoop,
    future: asyncio.Future[Any],
    result: Any,
    error: BaseException | None,
) -> None:
    with contextlib.suppress(RuntimeError):  # a closed loop: nobody awaits this run any more
        loop.call_soon_threadsafe(_settle, future, result, error)


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
