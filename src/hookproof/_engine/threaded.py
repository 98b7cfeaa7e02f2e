"""The onion below a sync wrap hook under ainvoke(), run on that hook's helper thread.

A sync hook runs on a helper thread so that it can block on its handler while the event loop
stays free. Its handler runs the layers inside it right there, as invoke() would: a sync-only
layer is called on the same thread, a layer with an async twin (and an asynchronous model or
tool, decided by the chain's innermost link) is handed back to the event loop and awaited
there, as it always was. A thread hand-off costs far more than a short hook, so a wrapped call
whose inside is synchronous takes one round trip to the helper thread instead of two.

What each hook sees stays as it was: it runs on a thread of its kind (a sync wrap hook on a
helper thread with no running event loop, an async twin on the loop's), in the same order,
with the same trace; a sync hook and its handler's inside each run in a copy of the context
variables, so they see what was set around them before they were called, and nothing set
inside flows back out.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from hookproof._engine.run import Run
from hookproof._engine.workers import wants_loop

if TYPE_CHECKING:
    import asyncio

__all__ = ["in_copied_context", "on_loop"]

SyncLink = Callable[[Run, Any], Any]


def on_loop(loop: asyncio.AbstractEventLoop, coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Await ``coroutine`` on the run's event loop and wait here for its result."""
    import asyncio  # loaded already: only a running event loop gets here

    wants_loop()  # the loop's thread may still be waiting for this thread's job
    try:
        future = asyncio.run_coroutine_threadsafe(coroutine, loop)
    except BaseException:  # a closed loop: the coroutine will never run, so never warns
        coroutine.close()
        raise
    return future.result()


def in_copied_context(inner: SyncLink) -> SyncLink:
    """``inner`` run in a copy of the caller's context variables, as an awaited boundary
    would run it: nothing it sets flows back out."""

    def call(run: Run, value: Any) -> Any:
        return contextvars.copy_context().run(inner, run, value)

    return call
