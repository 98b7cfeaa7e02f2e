"""The onion: layers chained once per agent around the innermost model and tool calls.

A chain is a function ``(run, value) -> result``; per-run data travels in ``run``, so one
chain serves every run. The sync chains are plain functions (invoke() makes no coroutine per
layer); the async chains await async twins and run a sync hook in a helper thread, whose
handler runs the synchronous rest of the onion right there (threaded.py).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import replace
from operator import attrgetter
from typing import Any

from hookproof._engine.dialect import Dialect
from hookproof._engine.executors import drive, missing_sync
from hookproof._engine.fused import fused_turn
from hookproof._engine.run import Run, error_data
from hookproof._engine.threaded import in_copied_context, on_loop
from hookproof._engine.types import Layer
from hookproof._engine.workers import in_thread
from hookproof._support.sync_ainvoke import answers_synchronously
from hookproof.errors import UsageError
from hookproof.guard import check_model
from hookproof.messages import AssistantMessage
from hookproof.requests import Command, FinalRequest, ModelRequest, ModelResponse

__all__ = ["Chains"]

SyncLink = Callable[[Run, Any], Any]
AsyncLink = Callable[[Run, Any], Coroutine[Any, Any, Any]]


class Chains:
    """The model and tool chains of one agent, for invoke() and for ainvoke(), and the fused
    turn that runs a model call and its tool calls in one helper visit (None when it must
    not: fused.py). Their innermost calls are another object's methods: chains holding this
    one's bound methods would make every agent a reference cycle, left to the garbage
    collector."""

    __slots__ = (
        *("async_model", "async_tool", "fused", "helper_model", "helper_tool"),
        *("sync_model", "sync_tool"),
    )

    def __init__(self, dialect: Dialect) -> None:
        stack, inner = dialect.stack, _Innermost(dialect)
        self.sync_model = _sync_chain(stack.model_layers, inner.model, observed=True)
        self.async_model, self.helper_model = _async_chain(
            stack.model_layers, inner.amodel, inner.model, observed=True
        )
        self.sync_tool = _sync_chain(stack.tool_layers, inner.tool)
        self.async_tool, self.helper_tool = _async_chain(stack.tool_layers, inner.atool, inner.tool)
        self.fused = fused_turn(dialect, self.helper_model, self.helper_tool)


class _Innermost:
    """The innermost model and tool calls of one agent's chains."""

    __slots__ = ("_dialect", "_tool_names")

    def __init__(self, dialect: Dialect) -> None:
        self._dialect = dialect
        self._tool_names: tuple[Any, tuple[str, ...]] = (None, ())

    # -- the innermost model call -----------------------------------------------------------

    def model(self, run: Run, call: Any) -> Any:
        """The model call under invoke(), and under ainvoke() on a sync wrap hook's helper
        thread (``run.loop`` set): there a model whose ``ainvoke`` does more than ``invoke``
        is awaited on the event loop."""
        request, final = self._model_enter(run, call)
        if run.probe is not None:
            run.probe.reached(f"model {final.model}")
        tools, names = self._tool_names  # _trace_model inline: every model call passes here
        if request.tools is not tools:
            names = self._names(request.tools)
        run.trace.enter("model", "model", None, {"model": final.model, "tools": names})
        model = request.model
        try:
            if run.loop is None or answers_synchronously(model):
                reply = model.invoke(final)
            else:
                reply = on_loop(run.loop, _awaited_model(model, final))
        except BaseException as error:
            run.trace.record("model", "model", "error", None, error_data(error))
            raise
        return self._dialect.model_answer(call, _model_exit(run, reply, final.model))

    async def amodel(self, run: Run, call: Any) -> Any:
        request, final = self._model_enter(run, call)
        if run.probe is not None:
            await run.probe.areached(f"model {final.model}")
        self._trace_model(run, request, final)
        model = request.model
        try:
            ainvoke = getattr(model, "ainvoke", None)
            reply = await ainvoke(final) if ainvoke is not None else model.invoke(final)
        except BaseException as error:
            run.trace.record("model", "model", "error", None, error_data(error))
            raise
        return self._dialect.model_answer(call, _model_exit(run, reply, final.model))

    def _model_enter(self, run: Run, call: Any) -> tuple[ModelRequest, FinalRequest]:
        request = self._dialect.final_request(call)
        check_model(request.model)
        provenance = run.observer.model_called(call, request)
        final = FinalRequest.from_request(request, provenance, run.sender)
        run.final_requests.append(final)
        return request, final

    def _trace_model(self, run: Run, request: ModelRequest, final: FinalRequest) -> None:
        tools, names = self._tool_names
        if request.tools is not tools:  # most calls show the agent's own (same) list
            names = self._names(request.tools)
        run.trace.enter("model", "model", None, {"model": final.model, "tools": names})

    def _names(self, tools: Any) -> tuple[str, ...]:
        """The sorted names of ``tools``, kept for the next call (most show the same list)."""
        names = tuple(sorted(item.name for item in tools))
        self._tool_names = (tools, names)
        return names

    # -- the innermost tool call ------------------------------------------------------------

    def tool(self, run: Run, value: Any) -> Any:
        """The tool call under invoke(), and under ainvoke() on a sync wrap hook's helper
        thread (``run.loop`` set): there an async tool is awaited on the event loop."""
        dialect = self._dialect
        name, call_id = dialect.tool_called(value)  # _tool_enter inline: every tool call
        run.source = f"tool {name}"
        data = {"tool": name, "call_id": call_id}
        if run.probe is not None:
            run.probe.reached(run.source)
        run.trace.enter("tool", "tool", None, data)
        try:
            if run.loop is None or dialect.runs_tool_synchronously(value):
                result = dialect.execute_tool(value)
            else:
                result = on_loop(run.loop, _awaited_tool(dialect, value))
        except BaseException as error:
            run.trace.record("tool", "tool", "error", None, {**data, **error_data(error)})
            raise
        return _tool_exit(run, data, result)

    async def atool(self, run: Run, value: Any) -> Any:
        data = self._tool_enter(run, value)
        if run.probe is not None:
            await run.probe.areached(run.source)
        run.trace.enter("tool", "tool", None, data)
        try:
            result = await self._dialect.aexecute_tool(value)
        except BaseException as error:
            run.trace.record("tool", "tool", "error", None, {**data, **error_data(error)})
            raise
        return _tool_exit(run, data, result)

    def _tool_enter(self, run: Run, value: Any) -> dict[str, str]:
        name, call_id = self._dialect.tool_called(value)
        run.source = f"tool {name}"
        return {"tool": name, "call_id": call_id}


async def _awaited_model(model: Any, final: FinalRequest) -> Any:
    return await model.ainvoke(final)  # called here, so it starts on the event loop


async def _awaited_tool(dialect: Dialect, value: Any) -> Any:
    return await dialect.aexecute_tool(value)


_name_of = attrgetter("name")


def _model_exit(run: Run, reply: Any, name: str) -> ModelResponse:
    message: AssistantMessage | None
    if type(reply) is AssistantMessage:  # most models answer so: one message, the answer
        response, message = ModelResponse(result=(reply,)), reply
    else:
        response = _as_model_response(reply, name)
        message = response.message
    calls = tuple(map(_name_of, message.tool_calls)) if message else ()  # no comprehension frame
    run.trace.exit("model", "model", None, {"model": name, "tool_calls": calls})
    return response


def _as_model_response(reply: Any, model: str) -> ModelResponse:
    if isinstance(reply, ModelResponse):
        return reply
    if isinstance(reply, AssistantMessage):
        return ModelResponse(result=(reply,))
    raise UsageError(
        f"hookproof: model {model!r} returned {type(reply).__name__}; a model's invoke() "
        "must return an AssistantMessage."
    )


def _tool_exit(run: Run, data: dict[str, str], result: Any) -> Any:
    status = "command" if isinstance(result, Command) else getattr(result, "status", "success")
    run.trace.exit("tool", "tool", None, {**data, "status": status})
    return result


# -- chaining -----------------------------------------------------------------------------


def _sync_chain(layers: Sequence[Layer], innermost: SyncLink, observed: bool = False) -> SyncLink:
    chain = innermost
    for layer in reversed(layers):
        chain = _sync_link(layer, chain, observed)
    return chain


def _async_chain(
    layers: Sequence[Layer],
    innermost: AsyncLink,
    threaded_innermost: SyncLink,
    observed: bool = False,
) -> tuple[AsyncLink, SyncLink | None]:
    """The chain under ainvoke(), built with its threaded twin: what a sync hook's handler
    runs on the hook's helper thread, from each layer inward. And the whole chain as a sync
    hook's helper thread runs it (fused.py) when its outermost layer is a sync-only hook
    that is always entered (else None)."""
    chain, threaded = innermost, threaded_innermost
    on_helper: SyncLink | None = None
    for layer in reversed(layers):
        link = _async_link(layer, chain, threaded, observed)
        if layer.sync is not None and layer.async_ is None and layer.when is None:
            on_helper = _sync_link(_as_awaited(layer), in_copied_context(threaded), observed)
        else:
            on_helper = None
        chain, threaded = link, _threaded_link(layer, threaded, link, observed)
    return chain, on_helper


def _as_awaited(layer: Layer) -> Layer:
    """``layer`` whose sync hook fails as it fails when awaited from a helper thread: a
    StopIteration it raises becomes the RuntimeError a coroutine makes of it."""
    sync = layer.sync
    assert sync is not None

    async def awaited(value: Any, handler: Any) -> Any:
        return sync(value, handler)

    def hook(value: Any, handler: Any) -> Any:
        return drive(awaited(value, handler))

    return replace(layer, sync=hook)


def _threaded_link(layer: Layer, inner: SyncLink, own_async: AsyncLink, observed: bool) -> SyncLink:
    """``layer`` on a sync hook's helper thread (threaded.py): a sync-only layer is called
    there as invoke() calls it, a layer with an async twin is awaited on the event loop
    (``own_async``, its link under ainvoke())."""
    if layer.async_ is None:
        return _sync_link(layer, in_copied_context(inner), observed)

    def handed_back(run: Run, value: Any) -> Any:
        return on_loop(run.loop, own_async(run, value))

    return handed_back


# In an ``observed`` chain (the model chain), a layer that hands its inner handler another
# value than it received is reported to the run's observer while the inner call lasts.


def _passing(run: Run, owner: str, received: Any, passed: Any, observed: bool) -> bool:
    if not observed or passed is received:
        return False
    run.observer.request_passed(owner, received, passed)
    return True


def _back(run: Run, label: str, passed: bool) -> None:
    run.source = label  # back in this layer
    if passed:
        run.observer.request_returned()


def _sync_link(layer: Layer, inner: SyncLink, observed: bool) -> SyncLink:
    owner, hook, func, when = layer.owner, layer.hook, layer.sync, layer.when
    label = f"{owner}.{hook}"

    def link(run: Run, value: Any) -> Any:
        if when is not None and not when(value):
            return inner(run, value)
        run.source = label
        if run.probe is not None:
            run.probe.reached(label)
        trace = run.trace  # its rows written here (TraceRecorder.enter, .exit): the hot path
        trace.rows.append(("layer", hook, "enter", owner, trace.depth, None))
        trace.depth += 1

        def handler(changed: Any) -> Any:  # _passing and _back inline: invoke()'s hot path
            passed = observed and changed is not value
            if passed:
                run.observer.request_passed(owner, value, changed)
            try:
                return inner(run, changed)
            finally:
                run.source = label  # back in this layer
                if passed:
                    run.observer.request_returned()

        try:
            if func is None:
                raise missing_sync(owner, hook)
            outcome = func(value, handler)
        except BaseException as error:
            trace.record("layer", hook, "error", owner, error_data(error))
            raise
        trace.depth = depth = trace.depth - 1
        trace.rows.append(("layer", hook, "exit", owner, depth, None))
        return outcome

    return link


def _async_link(layer: Layer, inner: AsyncLink, threaded: SyncLink, observed: bool) -> AsyncLink:
    owner, hook, when = layer.owner, layer.hook, layer.when
    label = f"{owner}.{hook}"
    call = _async_call(layer, inner, threaded, label, observed)

    async def link(run: Run, value: Any) -> Any:
        if when is not None and not when(value):
            return await inner(run, value)
        run.source = label
        if run.probe is not None:
            await run.probe.areached(label)
        trace = run.trace
        trace.record("layer", hook, "enter", owner)
        try:
            outcome = await call(run, value)
        except BaseException as error:
            trace.record("layer", hook, "error", owner, error_data(error))
            raise
        trace.record("layer", hook, "exit", owner)
        return outcome

    return link


def _async_call(
    layer: Layer, inner: AsyncLink, threaded_inner: SyncLink, label: str, observed: bool
) -> AsyncLink:
    """The layer's own call under ainvoke(): its async twin, or its sync hook in a thread.

    The sync hook's handler runs the inner layers on the hook's own thread (the threaded
    chain hands only what is asynchronous back to the loop); a probed run (check_isolation)
    instead awaits every inner boundary on the loop, where its probe holds it."""
    owner, twin, sync = layer.owner, layer.async_, layer.sync

    async def inner_call(run: Run, value: Any, changed: Any) -> Any:
        passed = _passing(run, owner, value, changed, observed)
        try:
            return await inner(run, changed)
        finally:
            _back(run, label, passed)

    async def awaited(run: Run, value: Any) -> Any:
        async def handler(changed: Any) -> Any:
            return await inner_call(run, value, changed)

        assert twin is not None
        return await twin(value, handler)

    async def threaded(run: Run, value: Any) -> Any:
        import asyncio  # loaded already: only a running event loop gets here

        loop = run.loop
        if loop is None:
            loop = run.loop = asyncio.get_running_loop()

        def handler(changed: Any) -> Any:
            passed = _passing(run, owner, value, changed, observed)
            try:
                return contextvars.copy_context().run(threaded_inner, run, changed)
            finally:
                _back(run, label, passed)

        def probed_handler(changed: Any) -> Any:
            return on_loop(loop, inner_call(run, value, changed))

        assert sync is not None  # a layer has a sync hook, an async twin, or both
        chosen = handler if run.probe is None else probed_handler
        return await in_thread(sync, value, chosen, loop=loop, brief=True)

    return awaited if twin is not None else threaded
