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

Each thread wakes the other by writing a byte to a pipe (``_Bell``), not by releasing a
lock: a write lets go of the GIL first, so the woken thread finds it free. Woken by a lock,
it would wake while the waker still held the GIL, wait for it, and be woken once more.
At most ``MAX_PIPE_BELLS`` pipes are open at once; past that, or when the process has no file
descriptor to spare, bells are locks: slower, never wrong.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import select
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    import asyncio

__all__ = ["BRIEF_SECONDS", "in_thread", "wants_loop"]

IDLE_SECONDS = 30.0  # how long an idle thread waits for another run before it ends
BRIEF_SECONDS = 0.001  # how long the loop's thread waits for a brief job before freeing the loop
MAX_PIPE_BELLS = 32  # pipes kept open for bells at most (two file descriptors each)


class _LockBell:
    """A lock one thread rings (releases) and another waits on (acquires): where there is no
    ``select.poll`` (Windows), or no pipe to spare. A ring wakes the waiter while the ringer
    still holds the GIL."""

    __slots__ = ("_lock",)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lock.acquire()

    def ring(self) -> None:
        self._lock.release()

    def wait(self, seconds: float) -> bool:
        """Whether it rang within ``seconds``; the ring is taken."""
        return self._lock.acquire(timeout=seconds)

    def take(self) -> None:
        """Take a ring that has come or is on its way."""
        self._lock.acquire()

    def close(self) -> None:
        return None


class _PipeBell:
    """A pipe one thread rings and another waits on. Its calls let go of the GIL around the
    system call, so a thread woken by ``ring`` does not wake into a GIL the ringer holds."""

    __slots__ = ("_poll", "_read", "_write")
    count: ClassVar[_PipeCount]  # how many are open (set below)

    def __init__(self) -> None:
        self._read = self._write = -1  # what close() and __del__ see if os.pipe() fails
        self._read, self._write = os.pipe()
        self._poll = select.poll()
        self._poll.register(self._read, select.POLLIN)

    def ring(self) -> None:
        os.write(self._write, b"\0")

    def wait(self, seconds: float) -> bool:
        """Whether it rang within ``seconds``; the ring is taken."""
        if not self._poll.poll(seconds * 1000):
            return False
        os.read(self._read, 1)
        return True

    def take(self) -> None:
        """Take a ring that has come or is on its way."""
        os.read(self._read, 1)

    def close(self) -> None:
        if self._read < 0:
            return
        for fd in (self._read, self._write):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._read = self._write = -1
        self.count.closed()  # not the global: at shutdown module globals may be gone

    def __del__(self) -> None:
        if self._read >= 0:
            # At interpreter shutdown this module's globals (contextlib too) may be gone.
            try:  # noqa: SIM105
                self.close()
            except Exception:  # noqa: BLE001
                pass


class _Bell(Protocol):
    def ring(self) -> None: ...
    def wait(self, seconds: float) -> bool: ...
    def take(self) -> None: ...
    def close(self) -> None: ...


class _PipeCount:
    """How many pipe bells are open. Past ``MAX_PIPE_BELLS``, or when the process cannot open
    another pipe, new bells are lock bells: many runs blocked in sync hooks at once must not
    use up the file descriptors the application needs."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.open = 0

    def opened(self) -> bool:
        with self._lock:
            if self.open >= MAX_PIPE_BELLS:
                return False
            self.open += 1
            return True

    def closed(self) -> None:
        with self._lock:
            self.open -= 1


_PIPES = _PipeBell.count = _PipeCount()


def _new_bell() -> _Bell:
    if not _POLL or not _PIPES.opened():
        return _LockBell()
    try:
        return _PipeBell()
    except OSError:  # out of file descriptors: a lock bell is slower, never wrong
        _PIPES.closed()
        return _LockBell()


_POLL = hasattr(select, "poll")

_HERE = threading.local()  # a thread's own bell, rung when a job it waits for is done


def _bell_here() -> _Bell:
    bell: _Bell | None = getattr(_HERE, "bell", None)
    if bell is None:
        bell = _HERE.bell = _new_bell()
    return bell


class _Job:
    """One call for a helper thread and its outcome. Until ``future`` is set, the loop's
    thread may be waiting for the outcome on ``bell``; once it is, the outcome settles it.
    The bell rings at most once per job (``rung``), and the loop's thread takes that ring
    before it goes on, so the next job finds the bell quiet."""

    __slots__ = (
        *("args", "bell", "context", "error", "finished", "func", "future"),
        *("lock", "loop", "result", "rung"),
    )

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        func: Callable[..., Any],
        args: Any,
        bell: _Bell | None,
    ):
        self.loop = loop
        self.func: Callable[..., Any] | None = func
        self.args: Any = args
        self.context: contextvars.Context | None = contextvars.copy_context()
        self.lock = threading.Lock()  # orders finishing against the switch to ``future``
        self.bell = bell  # None: the loop's thread awaits ``future`` from the start
        self.future: asyncio.Future[Any] | None = None
        self.finished = self.rung = False
        self.result: Any = None
        self.error: BaseException | None = None

    # -- on the helper thread ---------------------------------------------------------------

    def hand_back(self) -> None:
        with self.lock:
            self.finished = True
            future = self.future
            ring = future is None and not self.rung
            self.rung = self.rung or ring
        if ring:
            self.bell.ring()  # type: ignore[union-attr]  # a job without one has its future
        if future is None:
            return
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody awaits this run any more
            self.loop.call_soon_threadsafe(_settle, future, self.result, self.error)
        self.result = self.error = None

    def want_loop(self) -> None:
        with self.lock:
            ring = self.future is None and not self.rung
            self.rung = self.rung or ring
        if ring:
            self.bell.ring()  # type: ignore[union-attr]  # a job without one has its future

    # -- on the loop's thread ---------------------------------------------------------------

    def awaited(self) -> asyncio.Future[Any] | None:
        """None when the outcome is in already, else the future it will settle."""
        with self.lock:
            return self._awaited()

    def _awaited(self) -> asyncio.Future[Any] | None:
        if self.finished:
            return None
        self.future = self.loop.create_future()
        return self.future

    def briefly_awaited(self, seconds: float) -> asyncio.Future[Any] | None:
        """``awaited`` after waiting here at most ``seconds`` for the outcome (or until the
        helper thread wants the loop)."""
        bell = self.bell
        assert bell is not None
        rang = bell.wait(seconds)
        with self.lock:  # _awaited inline: every brief job passes here
            late = not rang and self.rung  # it rang as the wait ended
            future = None if self.finished else self.loop.create_future()
            self.future = future
        if late:
            bell.take()
        return future

    def outcome(self) -> Any:
        """The result, or the error raised (taken: the job keeps neither)."""
        result, error = self.result, self.error
        self.result = self.error = None
        if error is None:
            return result
        try:
            raise error
        finally:
            error = None  # no reference cycle through this frame


class _Helper:
    """One reusable thread: ``bell`` rings when ``job`` has been set."""

    __slots__ = ("bell", "job")

    def __init__(self) -> None:
        self.job: _Job | None = None
        self.bell = _new_bell()


_RUNNING = threading.local()  # on a helper thread, ``job``: the one it runs


class _Workers:
    """Reusable threads; the idle ones wait in ``_idle``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[_Helper] = []

    def forget(self) -> list[_Helper]:
        """The idle threads, forgotten (a forked child has none of them)."""
        self._lock = threading.Lock()
        idle, self._idle = self._idle, []
        return idle

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
        helper.bell.ring()

    def _serve(self, helper: _Helper) -> None:
        while self._serve_one(helper):
            pass
        helper.bell.close()  # out of the idle list: nobody rings it any more

    def _serve_one(self, helper: _Helper) -> bool:
        """One job, or False when the thread has been idle long enough to end. The job and
        its outcome die with this frame: an idle thread keeps nothing of the last run."""
        if not helper.bell.wait(IDLE_SECONDS):
            with self._lock:
                if helper in self._idle:
                    self._idle.remove(helper)
                    return False
            return True  # submit() took this thread just now: its job is on the way
        job, helper.job = helper.job, None
        assert job is not None
        _RUNNING.job = job
        # The call (its function, arguments and context are dropped: the outcome is kept).
        func, args, context = job.func, job.args, job.context
        job.func = job.args = job.context = None
        assert func is not None and context is not None
        try:
            job.result = context.run(func, *args)
        except BaseException as error:  # noqa: BLE001 - handed to the awaiting coroutine
            job.error = error
        finally:
            _RUNNING.job = None
            del func, args, context  # not kept while the caller hears back
        with self._lock:  # idle before the caller hears back: its next call reuses us
            self._idle.append(helper)
        job.hand_back()
        return True


_WORKERS = _Workers()


def _forget_after_fork() -> None:
    """A forked child has none of the helper threads, and shares their pipes (and this
    thread's bell) with the parent: it starts its own, so no ring crosses processes."""
    for helper in _WORKERS.forget():
        helper.bell.close()
    bell: _Bell | None = getattr(_HERE, "bell", None)
    if bell is not None:
        bell.close()
        _HERE.bell = None


if hasattr(os, "register_at_fork"):  # where processes fork (not on Windows)
    os.register_at_fork(after_in_child=_forget_after_fork)


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
    wait = BRIEF_SECONDS if brief else 0.0  # read per call: 0 turns brief waits off
    bell = None
    if wait > 0:
        bell = getattr(_HERE, "bell", None) or _bell_here()  # _bell_here's lookup inline
    job = _Job(loop, func, args, bell)
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
