"""One helper-thread visit for a model call and the tool calls it asks for, under ainvoke().

A sync wrap hook runs on a helper thread (workers.py), and each hand-off between the event
loop's thread and a helper costs more than a short hook. When nothing but the engine's own
bookkeeping runs between a sync ``wrap_model_call`` and the sync ``wrap_tool_call`` of the
same turn, the helper that ran the model call writes its answer into the state and runs the
tools step as well: one hand-off for the turn instead of one per wrapped call.

Nothing a hook, model or tool sees changes: each runs on the thread it ran on (sync wrap
hooks and their synchronous inside on a helper, whatever is asynchronous handed back to the
loop), in a copy of the context variables the loop's thread had (the bookkeeping sets none),
in the same order, with the same trace, results and errors. So the visit is taken only when
no user code runs in between: no node hook after the model (``after_model``), no async twin
or ``when`` on the outermost layers, only the engine's own reducers, a dialect whose
bookkeeping is its own (``Dialect.plain_bookkeeping``), and no probe, listener or resumed
step watching the run. A cancelled ``ainvoke`` abandons the visit: its bookkeeping runs
under a lock the cancelled task takes, so no state is written and no tool call starts after
the task has seen its cancellation (the hook running at that moment finishes apart, as it
always did).
"""

from __future__ import annotations

import contextvars
import dataclasses
import threading
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from hookproof._engine.executors import drive
from hookproof._engine.run import Run
from hookproof._engine.schemas import replace
from hookproof._engine.state import add_messages
from hookproof._engine.types import Layer, Phase
from hookproof._engine.workers import in_thread

if TYPE_CHECKING:
    from hookproof._engine.dialect import Dialect

__all__ = ["FusedTurn", "TurnLoop", "as_awaited", "fused_turn"]

_OWN_REDUCERS = (add_messages, replace)

SyncLink = Callable[[Run, Any], Any]
Step = Callable[[], Coroutine[Any, Any, str | None]]  # the loop's tools step: its jump
AsyncTool = Callable[[Run, Any], Coroutine[Any, Any, Any]]


class TurnLoop(Protocol):
    """What a visit needs of the run's loop (loop.py's ``_Loop``)."""

    run: Run
    dialect: Dialect
    watching: bool
    async_tool: AsyncTool


def fused_turn(dialect: Dialect, model: SyncLink | None, tool: SyncLink | None) -> FusedTurn | None:
    """The agent's fused turn, given its model and tool chains as a helper thread runs them
    (None: an outermost layer is not a sync-only hook always entered); None when user code
    could run between the two."""
    if model is None or tool is None or not dialect.plain_bookkeeping:
        return None
    if dialect.stack.after_model:  # node hooks run between the model and the tools step
        return None
    if not all(reducer in _OWN_REDUCERS for reducer in dialect.state.reducers.values()):
        return None
    return FusedTurn(model, tool)


class _Abandoned(BaseException):
    """The task awaiting the visit was cancelled: the visit stops before its next piece."""


class _Gate:
    """Held by the visit while it does bookkeeping, taken by its task when cancelled. The
    visit takes it with ``lock.acquire`` and then checks ``abandoned`` (it stays held when
    the visit was abandoned, until the visit's ``finally`` lets go); ``lock.release``
    lets go of it (inline where the visit does: no method call per piece)."""

    __slots__ = ("abandoned", "lock")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.abandoned = False

    def abandon(self) -> None:
        with self.lock:
            self.abandoned = True


class FusedTurn:
    """A model call and its tools step in one visit to a helper thread."""

    __slots__ = ("_model", "_tool")

    def __init__(self, model: SyncLink, tool: SyncLink) -> None:
        self._model, self._tool = model, tool

    @staticmethod
    def applies(loop: TurnLoop) -> bool:
        run = loop.run
        return run.probe is None and not run.listened and not loop.watching

    async def turn(self, loop: TurnLoop, value: Any, step: Step) -> Phase:
        """The model call with ``value``, its answer written, then the tools step when the
        run goes on to it (``step``: the loop's own); returns the phase after."""
        run, gate = loop.run, _Gate()
        if run.loop is None:
            import asyncio  # loaded already: only a running event loop gets here

            run.loop = asyncio.get_running_loop()
        try:
            return await in_thread(  # type: ignore[no-any-return]
                self._visit, loop, value, step, gate, loop=run.loop, brief=True
            )
        except BaseException:
            gate.abandon()  # a visit still running stops before its next piece
            raise

    # -- on the helper thread, in a copy of the loop thread's context -----------------------

    def _visit(self, loop: TurnLoop, value: Any, step: Step, gate: _Gate) -> Phase:
        run = loop.run
        outcome = contextvars.copy_context().run(self._model, run, value)
        lock = gate.lock
        lock.acquire()
        try:
            if gate.abandoned:
                raise _Abandoned
            run.model_calls += 1
            loop.dialect.model_output(run.handle, outcome)
            run.phase, run.hook_index = Phase.TOOLS, 0
            return self._tools_step(loop, step, gate)
        finally:
            lock.release()

    def _tools_step(self, loop: TurnLoop, step: Step, gate: _Gate) -> Phase:
        """The loop's own tools step, each tool call through this visit's own chain."""
        awaited, tool, lock = loop.async_tool, self._tool, gate.lock

        async def on_helper(run: Run, value: Any) -> Any:
            lock.release()
            try:
                return contextvars.copy_context().run(tool, run, value)
            finally:
                lock.acquire()
                if gate.abandoned:
                    raise _Abandoned

        loop.async_tool = on_helper
        try:
            jump = drive(step())
            return Phase.AFTER_AGENT if jump == "end" else Phase.BEFORE_MODEL
        finally:
            loop.async_tool = awaited


def as_awaited(layer: Layer) -> Layer:
    """``layer`` whose sync hook fails as it fails when awaited from a helper thread: a
    StopIteration it raises becomes the RuntimeError a coroutine makes of it (the same
    message, the StopIteration as its cause), with no coroutine to build per call."""
    sync = layer.sync
    assert sync is not None

    def hook(value: Any, handler: Any) -> Any:
        try:
            return sync(value, handler)
        except StopIteration as error:
            raise RuntimeError("coroutine raised StopIteration") from error

    return dataclasses.replace(layer, sync=hook, contract=None)  # the engine calls ``sync``
