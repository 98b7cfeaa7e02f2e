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

from hookproof._engine.run import Run, error_data
from hookproof._engine.types import Layer

if TYPE_CHECKING:
    import asyncio

__all__ = ["ThreadedLink", "answers_synchronously", "on_loop", "threaded_link"]

ThreadedLink = Callable[[Run, Any, "asyncio.AbstractEventLoop"], Any]
AsyncLink = Callable[[Run, Any], Coroutine[Any, Any, Any]]


def on_loop(loop: asyncio.AbstractEventLoop, coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Await ``coroutine`` on the run's event loop and wait here for its result."""
    import asyncio  # loaded already: only a running event loop gets here

    try:
        future = asyncio.run_coroutine_threadsafe(coroutine, loop)
    except BaseException:  # a closed loop: the coroutine will never run, so never warns
        coroutine.close()
        raise
    return future.result()


def answers_synchronously(model: Any) -> bool:
    """A model with no ``ainvoke``, or whose ``ainvoke`` only calls ``invoke`` (it says so with
    ``hookproof_sync_ainvoke``): calling ``invoke`` on a helper thread is what ainvoke() does."""
    return getattr(model, "ainvoke", None) is None or (
        getattr(model, "hookproof_sync_ainvoke", False) is True
    )


def threaded_link(
    layer: Layer, inner: ThreadedLink, own_async: AsyncLink, observed: bool
) -> ThreadedLink:
    """``layer`` on a sync hook's helper thread: a sync-only layer is called here, a layer
    with an async twin runs on the event loop (``own_async``, its link under ainvoke())."""
    if layer.async_ is not None:

        def handed_back(run: Run, value: Any, loop: asyncio.AbstractEventLoop) -> Any:
            return on_loop(loop, own_async(run, value))

        return handed_back
    return _sync_here(layer, inner, observed)


def _sync_here(layer: Layer, inner: ThreadedLink, observed: bool) -> ThreadedLink:
    owner, hook, func, when = layer.owner, layer.hook, layer.sync, layer.when
    label = f"{owner}.{hook}"
    assert func is not None  # a layer without an async twin has a sync hook

    def link(run: Run, value: Any, loop: asyncio.AbstractEventLoop) -> Any:
        if when is not None and not when(value):
            return inner(run, value, loop)
        run.source = label
        trace = run.trace
        trace.record("layer", hook, "enter", owner)

        def handler(changed: Any) -> Any:
            passed = observed and changed is not value
            if passed:
                run.observer.request_passed(owner, value, changed)
            try:
                return contextvars.copy_context().run(inner, run, changed, loop)
            finally:
                run.source = label  # back in this layer
                if passed:
                    run.observer.request_returned()

        try:
            outcome = func(value, handler)
        except BaseException as error:
            trace.record("layer", hook, "error", owner, error_data(error))
            raise
        trace.record("layer", hook, "exit", owner)
        return outcome

    return link
