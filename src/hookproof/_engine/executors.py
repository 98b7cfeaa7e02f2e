"""How each step is called: synchronously under invoke(), awaited under ainvoke().

Under invoke() (the loop's ``sync`` mode) everything is a plain call: the layer chains are
plain functions and the one coroutine of the loop never suspends, so ``drive`` runs it
without an event loop. Under
ainvoke() async twins are awaited first; a sync wrap hook runs in a helper thread (workers.py)
whose handler runs the synchronous inner layers there and hands the asynchronous ones back to
the event loop (threaded.py), so sync and async hooks mix.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, cast

from hookproof.errors import MissingAsyncHookError
from hookproof.tools import Tool

__all__ = ["drive", "missing_sync", "run_tool"]


def drive(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine that never suspends, without an event loop."""
    try:
        coroutine.send(None)
    except StopIteration as stop:
        return stop.value
    coroutine.close()
    raise MissingAsyncHookError(
        "hookproof: something awaited real asynchronous work during invoke(). invoke() runs "
        "synchronously, so it cannot wait for it. Call `await agent.ainvoke(...)` instead."
    )


def missing_sync(owner: str, hook: str) -> MissingAsyncHookError:
    return MissingAsyncHookError(
        f"hookproof: middleware {owner!r} defines only a{hook}, but the agent was run with "
        f"invoke(), which is synchronous. Define {hook} as well, or run with ainvoke()."
    )


def run_tool(tool: Tool, kwargs: dict[str, Any]) -> Any:
    """A hookproof Tool's function under invoke() (an async-only tool gets its own loop)."""
    if tool.func is not None:
        return tool.func(**kwargs)
    assert tool.coroutine is not None
    import asyncio  # only for an async-only tool: invoke() itself never needs asyncio

    return asyncio.run(cast(Coroutine[Any, Any, Any], tool.coroutine(**kwargs)))
