"""The onion: layers chained once per agent around the innermost model and tool calls.

A chain is a function ``(run, value) -> result``; per-run data travels in ``run``, so one
chain serves every run. The sync chains are plain functions (invoke() makes no coroutine per
layer); the async chains await async twins and run a sync hook in a helper thread.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from hookproof._engine.dialect import Dialect
from hookproof._engine.executors import missing_sync
from hookproof._engine.run import Run, error_data
from hookproof._engine.types import Layer
from hookproof._engine.workers import in_thread
from hookproof._guard import check_model
from hookproof.errors import UsageError
from hookproof.messages import AssistantMessage
from hookproof.provenance import PendingProvenance
from hookproof.vocabulary import Command, FinalRequest, ModelRequest, ModelResponse

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Chains"]

SyncLink = Callable[[Run, Any], Any]
AsyncLink = Callable[[Run, Any], Coroutine[Any, Any, Any]]


class Chains:
    """The model and tool chains of one agent, for invoke() and for ainvoke()."""

    __slots__ = ("_tool_names", "async_model", "async_tool", "sync_model", "sync_tool")

    def __init__(self, dialect: Dialect) -> None:
        stack = dialect.stack
        self._tool_names: tuple[Any, tuple[str, ...]] = (None, ())
        self.sync_model = _sync_chain(stack.model_layers, self._model, notes=True)
        self.async_model = _async_chain(stack.model_layers, self._amodel, notes=True)
        self.sync_tool = _sync_chain(stack.tool_layers, _tool)
        self.async_tool = _async_chain(stack.tool_layers, _atool)

    # -- the innermost model call -----------------------------------------------------------

    def _model(self, run: Run, call: Any) -> Any:
        request, final = self._model_enter(run, call)
        if run.probe is not None:
            run.probe.reached(f"model {final.model}")
        self._trace_model(run, request, final)
        try:
            reply = request.model.invoke(final)
        except BaseException as error:
            run.trace.record("model", "model", "error", None, error_data(error))
            raise
        return run.dialect.model_answer(call, _model_exit(run, reply, final.model))

    async def _amodel(self, run: Run, call: Any) -> Any:
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
        return run.dialect.model_answer(call, _model_exit(run, reply, final.model))

    @staticmethod
    def _model_enter(run: Run, call: Any) -> tuple[ModelRequest, FinalRequest]:
        dialect = run.dialect
        request = dialect.final_request(call)
        check_model(request.model)
        edits = run.model_edits
        start, prior = dialect.prior_edits(call)
        base = start if start is not None else edits[0][1] if edits else call
        provenance = PendingProvenance(
            base,
            [*prior, *edits],
            request,
            dialect.tool_origins,
            dialect.request_of,
            dialect.system_origins,
        )
        final = FinalRequest.from_request(request, provenance)
        run.final_requests.append(final)
        return request, final

    def _trace_model(self, run: Run, request: ModelRequest, final: FinalRequest) -> None:
        data = {"model": final.model, "tools": self._names(request)}
        run.trace.record("model", "model", "enter", None, data)

    def _names(self, request: ModelRequest) -> tuple[str, ...]:
        tools, names = self._tool_names
        if request.tools is not tools:  # most calls show the agent's own (same) list
            names = tuple(sorted(item.name for item in request.tools))
            self._tool_names = (request.tools, names)
        return names


def _model_exit(run: Run, reply: Any, name: str) -> ModelResponse:
    response = _as_model_response(reply, name)
    message = response.message
    calls = tuple(call.name for call in message.tool_calls) if message else ()
    run.trace.record("model", "model", "exit", None, {"model": name, "tool_calls": calls})
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


# -- the innermost tool call --------------------------------------------------------------


def _tool_enter(run: Run, value: Any) -> dict[str, str]:
    name, call_id = run.dialect.tool_called(value)
    run.source = f"tool {name}"
    return {"tool": name, "call_id": call_id}


def _tool_exit(run: Run, data: dict[str, str], result: Any) -> Any:
    status = "command" if isinstance(result, Command) else getattr(result, "status", "success")
    run.trace.record("tool", "tool", "exit", None, {**data, "status": status})
    return result


def _tool(run: Run, value: Any) -> Any:
    data = _tool_enter(run, value)
    if run.probe is not None:
        run.probe.reached(run.source)
    run.trace.record("tool", "tool", "enter", None, data)
    try:
        result = run.dialect.execute_tool(value)
    except BaseException as error:
        run.trace.record("tool", "tool", "error", None, {**data, **error_data(error)})
        raise
    return _tool_exit(run, data, result)


async def _atool(run: Run, value: Any) -> Any:
    data = _tool_enter(run, value)
    if run.probe is not None:
        await run.probe.areached(run.source)
    run.trace.record("tool", "tool", "enter", None, data)
    try:
        result = await run.dialect.aexecute_tool(value)
    except BaseException as error:
        run.trace.record("tool", "tool", "error", None, {**data, **error_data(error)})
        raise
    return _tool_exit(run, data, result)


# -- chaining -----------------------------------------------------------------------------


def _sync_chain(layers: Sequence[Layer], innermost: SyncLink, notes: bool = False) -> SyncLink:
    chain = innermost
    for layer in reversed(layers):
        chain = _sync_link(layer, chain, notes)
    return chain


def _async_chain(layers: Sequence[Layer], innermost: AsyncLink, notes: bool = False) -> AsyncLink:
    chain = innermost
    for layer in reversed(layers):
        chain = _async_link(layer, chain, notes)
    return chain


# With ``notes`` (the model chain), a layer that hands its inner handler another request than
# it received is noted in the run, (owner, received, passed on), while the inner call lasts:
# the FinalRequest's provenance is read from these notes.


def _note(run: Run, owner: str, received: Any, passed: Any) -> bool:
    if passed is received:
        return False
    run.model_edits.append((owner, received, passed))
    return True


def _sync_link(layer: Layer, inner: SyncLink, notes: bool) -> SyncLink:
    owner, hook, func, when = layer.owner, layer.hook, layer.sync, layer.when
    label = f"{owner}.{hook}"

    def link(run: Run, value: Any) -> Any:
        if when is not None and not when(value):
            return inner(run, value)
        run.source = label
        if run.probe is not None:
            run.probe.reached(label)
        trace = run.trace
        trace.record("layer", hook, "enter", owner)

        def handler(changed: Any) -> Any:
            noted = notes and _note(run, owner, value, changed)
            try:
                return inner(run, changed)
            finally:
                run.source = label  # back in this layer
                if noted:
                    run.model_edits.pop()

        try:
            if func is None:
                raise missing_sync(owner, hook)
            outcome = func(value, handler)
        except BaseException as error:
            trace.record("layer", hook, "error", owner, error_data(error))
            raise
        trace.record("layer", hook, "exit", owner)
        return outcome

    return link


def _async_link(layer: Layer, inner: AsyncLink, notes: bool) -> AsyncLink:
    owner, hook, when = layer.owner, layer.hook, layer.when
    label = f"{owner}.{hook}"
    call = _async_call(layer, inner, label, notes)

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


def _async_call(layer: Layer, inner: AsyncLink, label: str, notes: bool) -> AsyncLink:
    """The layer's own call under ainvoke(): its async twin, or its sync hook in a thread."""
    owner = layer.owner
    if layer.async_ is not None:
        func = layer.async_

        async def twin(run: Run, value: Any) -> Any:
            async def handler(changed: Any) -> Any:
                noted = notes and _note(run, owner, value, changed)
                try:
                    return await inner(run, changed)
                finally:
                    run.source = label
                    if noted:
                        run.model_edits.pop()

            return await func(value, handler)

        return twin
    sync = layer.sync
    assert sync is not None

    async def threaded(run: Run, value: Any) -> Any:
        import asyncio  # loaded already: only a running event loop gets here

        loop = asyncio.get_running_loop()

        def handler(changed: Any) -> Any:
            noted = notes and _note(run, owner, value, changed)
            try:
                return asyncio.run_coroutine_threadsafe(inner(run, changed), loop).result()
            finally:
                run.source = label
                if noted:
                    run.model_edits.pop()

        return await in_thread(sync, value, handler)

    return threaded
