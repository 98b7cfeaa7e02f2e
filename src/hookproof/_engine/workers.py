"""The helper threads for synchronous work under asyncio: a sync wrap hook under ainvoke(),
a whole Eino run under ``arun``/``aresume``.

Starting a thread per call costs more CPU than a short run itself; these threads are kept
and reused. A run never waits for another: when every thread is busy a new one starts (a
bounded pool could deadlock runs that wait on each other), and a thread idle for a while ends.

A round trip through the event loop (the helper wakes the loop's selector, the loop runs a
callback that wakes the waiting task) costs more than a short hook. So
``in_thread(..., brief=True)`` (a sync wrap hook) first waits on the loop's thread, at most
``BRIEF_SECONDS``, for the helper to finish: a short hook hands its result straight back,
and the awaiting coroutine goes on without ever suspending. A hook that takes longer, or
whose inside is awaited on the event loop (``wants_loop``, at once), frees the loop and is
awaited there as before: the loop is never held longer than ``BRIEF_SECONDS`` per call.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

__all__ = ["BRIEF_SECONDS", "in_thread", "wants_loop"]

IDLE_SECONDS = 30.0  # how long an idle thread waits for another run before it ends
BRIEF_SECONDS = 0.001  # how long the loop's thread waits for a brief job before freeing the loop


class _Job:
    """One call for a helper thread and its outcome. Until ``future`` is set, the loop's
    thread may be waiting for the outcome on ``ready``; once it is, the outcome settles it."""

    __slots__ = (
        *("args", "context", "error", "finished", "func", "future"),
        *("lock", "loop", "ready", "result", "woken"),
    )

    def __init__(self, loop: asyncio.AbstractEventLoop, func: Callable[..., Any], args: Any):
        self.loop = loop
        self.func: Callable[..., Any] | None = func
        self.args: Any = args
        self.context: contextvars.Context | None = contextvars.copy_context()
        self.lock = threading.Lock()  # orders finishing against the switch to ``future``
        self.ready = threading.Lock()  # released once: the outcome is in, or the loop is wanted
        self.ready.acquire()
        self.future: asyncio.Future[Any] | None = None
        self.finished = self.woken = False
        self.result: Any = None
        self.error: BaseException | None = None

    # -- on the helper thread ---------------------------------------------------------------

    def run(self) -> None:
        """The call; its function, arguments and context are dropped after."""
        func, context = self.func, self.context
        assert func is not None and context is not None
        try:
            self.result = context.run(func, *self.args)
        except BaseException as error:  # noqa: BLE001 - handed to the awaiting coroutine
            self.error = error
        self.func = self.args = self.context = None

    def hand_back(self) -> None:
        with self.lock:
            self.finished = True
            future = self.future
            if future is None:
                self._wake()
                return
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody awaits this run any more
            self.loop.call_soon_threadsafe(_settle, future, self.result, self.error)
        self.result = self.error = None

    def want_loop(self) -> None:
        with self.lock:
            if self.future is None:
                self._wake()

    def _wake(self) -> None:
        if not self.woken:
            self.woken = True
            self.ready.release()

    # -- on the loop's thread ---------------------------------------------------------------

    def awaited(self) -> asyncio.Future[Any] | None:
        """None when the outcome is in already, else the future it will settle."""
        with self.lock:
            if self.finished:
                return None
            self.future = self.loop.create_future()
            return self.future

    def briefly_awaited(self, seconds: float) -> asyncio.Future[Any] | None:
        """``awaited`` after waiting here at most ``seconds`` for the outcome (or until the
        helper thread wants the loop)."""
        self.ready.acquire(timeout=seconds)
        return self.awaited()

    def outcome(self) -> Any:
        return _raised(self._taken())

    def _taken(self) -> tuple[Any, BaseException | None]:
        taken = self.result, self.error
        self.result = self.error = None
        return taken


class _Helper:
    """One reusable thread: ``wake`` is released when ``job`` has been set."""

    __slots__ = ("job", "wake")

    def __init__(self) -> None:
        self.job: _Job | None = None
        self.wake = threading.Lock()
        self.wake.acquire()


_RUNNING = threading.local()  # on a helper thread, ``job``: the one it runs


class _Workers:
    """Reusable threads; the idle ones wait in ``_idle``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[_Helper] = []

    def submit(self, job: _Job) -> None:
        with self._lock:
            helper = self._idle.pop() if self._idle else None
        if helper is None:
            helper = _Helper()
            thread = threading.Thread(
                target=self._serve, args=(helper,), name="hookproof-worker", daemon=True
            )
            thread.start()
        helper.job = job
        helper.wake.release()

    def _serve(self, helper: _Helper) -> None:
        while self._serve_one(helper):
            pass

    def _serve_one(self, helper: _Helper) -> bool:
        """One job, or False when the thread has been idle long enough to end. The job and
        its outcome die with this frame: an idle thread keeps nothing of the last run."""
        if not helper.wake.acquire(timeout=IDLE_SECONDS):
            with self._lock:
                if helper in self._idle:
                    self._idle.remove(helper)
                    return False
            return True  # submit() took this thread just now: its job is on the way
        job, helper.job = helper.job, None
        assert job is not None
        _RUNNING.job = job
        try:
            job.run()
        finally:
            _RUNNING.job = None
        with self._lock:  # idle before the caller hears back: its next call reuses us
            self._idle.append(helper)
        job.hand_back()
        return True


_WORKERS = _Workers()


async def in_thread(
    func: Callable[..., Any],
    *args: Any,
    loop: asyncio.AbstractEventLoop | None = None,
    brief: bool = False,
) -> Any:
    """``func(*args)`` on a helper thread, in a copy of the caller's context variables;
    ``loop`` is the running loop (looked up when None). ``brief``: wait for it on the loop's
    thread first, at most ``BRIEF_SECONDS`` (see the module's docstring)."""
    if loop is None:
        import asyncio  # loaded already: only a running event loop gets here

        loop = asyncio.get_running_loop()
    job = _Job(loop, func, args)
    wait = BRIEF_SECONDS if brief else 0.0  # read per call: 0 turns brief waits off
    future = job.awaited() if wait <= 0 else None
    _WORKERS.submit(job)
    if wait > 0:
        future = job.briefly_awaited(wait)
    return job.outcome() if future is None else _raised(await future)


def wants_loop() -> None:
    """Called on a helper thread about to await something on the event loop: a loop thread
    still waiting briefly for this thread's job stops waiting and frees the loop."""
    job = getattr(_RUNNING, "job", None)
    if job is not None:
        job.want_loop()


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    """The outcome as the future's result, an error too: a future refuses some exceptions
    (StopIteration), and one it refused would never be settled."""
    if not future.cancelled():
        future.set_result((result, error))


def _raised(outcome: tuple[Any, BaseException | None]) -> Any:
    result, error = outcome
    del outcome  # the error's traceback holds this frame: no cycle through it
    if error is None:
        return result
    try:
        raise error
    finally:
        error = None  # no reference cycle through this frame
