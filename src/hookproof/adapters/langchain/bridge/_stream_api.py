"""``stream``, ``astream`` and ``stream_events(version="v3")`` on a LangChain-shaped agent.

A synchronous stream is lazy as LangGraph's is: the run is suspended at the end of each step
until the caller has read that step's chunks, so breaking out of the loop stops the run
there. An asynchronous stream runs the run as a task that wakes the reader at each step's
end. Either way the run executes its own context (a copy of the caller's), so nothing it
sets leaks into the caller between chunks.

``stream_events(version="v3")`` hands these chunks to LangGraph's own stream multiplexer with
the transformers a ``create_agent`` graph registers, so its projections (``tool_calls``,
``messages``, ``subgraphs``, ``output``...) are LangGraph's.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from hookproof.adapters.langchain.bridge._graph_span import AsyncGraphSpan, GraphSpan
    from hookproof.adapters.langchain.bridge._stream import GraphStepListener, StreamRequest

from hookproof._engine import STEP, UNLISTENED, RunResult, StepListener, drive
from hookproof.adapters.langchain.bridge._graph_run import GraphRun, set_graph_run
from hookproof.adapters.langchain.bridge._stream_scope import enclosing_stream
from hookproof.errors import MissingAsyncHookError, UsageError

__all__ = ["DEFAULT_MODE", "LangChainCallShape", "LangChainStreaming"]

DEFAULT_MODE = "updates"  # a compiled create_agent graph streams its updates by default


class LangChainCallShape(Protocol):
    """One LangChain-shaped call, prepared (the agent's ``_call`` makes it)."""

    input: Any
    engine_input: Any
    thread_id: str | None
    graph_run: GraphRun

    def output(self, result: Any) -> Any: ...

    def output_values(self, state: Mapping[str, Any]) -> dict[str, Any]: ...

    def context_for(self, context: Any) -> Any: ...

    def interrupts(self, pending: Sequence[Any], thread_id: str | None) -> list[Any]: ...


class LangChainStreaming:
    """The streaming half of a compiled ``create_agent`` graph's API."""

    stream_transformers: tuple[Callable[[tuple[str, ...]], Any], ...] = ()
    lc_agent_name: str | None = None

    if TYPE_CHECKING:  # what the agent class this is mixed into provides

        def _call(
            self, input: Any, config: Mapping[str, Any] | None, options: Mapping[str, Any]
        ) -> LangChainCallShape: ...

        def _start_run(
            self,
            input: Any,
            *,
            context: Any,
            thread_id: str | None,
            sync: bool,
            listener: StepListener = ...,
        ) -> Coroutine[Any, Any, RunResult]: ...

    def stream(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        context: Any = None,
        stream_mode: str | Sequence[str] | None = None,
        subgraphs: bool = False,
        version: str = "v1",
        **options: Any,
    ) -> Iterator[Any]:
        """What a compiled ``create_agent`` graph's ``stream`` yields, chunk for chunk."""
        request = _request(stream_mode, subgraphs, config, version)
        call = self._call(input, config, options)
        request.base = _base()
        return self._chunks(
            call, context, request, (stream_mode or DEFAULT_MODE, subgraphs, version)
        )

    async def astream(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        context: Any = None,
        stream_mode: str | Sequence[str] | None = None,
        subgraphs: bool = False,
        version: str = "v1",
        **options: Any,
    ) -> AsyncIterator[Any]:
        """Like stream, on the running event loop."""
        request = _request(stream_mode, subgraphs, config, version)
        call = self._call(input, config, options)
        request.base = _base()
        shape = (stream_mode or DEFAULT_MODE, subgraphs, version)
        async for chunk in self._achunks(call, context, request):
            yield _stream().format_chunk(chunk, *shape)

    def _run_listened(self, call: LangChainCallShape, context: Any) -> RunResult:
        """An invoke's run: heard by the stream that encloses it (an agent a streamed agent's
        tool runs streams into its parent's stream, as a LangGraph subgraph does)."""
        span = self._span(call)
        run = self._start_run(
            call.engine_input,
            context=call.context_for(context),
            thread_id=call.thread_id,
            sync=True,
            listener=self._nested_listener(call),
        )
        try:
            result: RunResult = drive(run)
        except BaseException as error:
            span.error(error)
            raise
        span.end(lambda: call.output(result))
        return result

    async def _arun_listened(self, call: LangChainCallShape, context: Any) -> RunResult:
        """Like _run_listened, on the running event loop."""
        span = await self._aspan(call)
        run = self._start_run(
            call.engine_input,
            context=call.context_for(context),
            thread_id=call.thread_id,
            sync=False,
            listener=self._nested_listener(call),
        )
        try:
            result = await run
        except BaseException as error:
            await span.error(error)
            raise
        await span.end(lambda: call.output(result))
        return result

    def _span(self, call: LangChainCallShape) -> GraphSpan:
        """The graph's own chain run, opened before anything of the run is (its children)."""
        from hookproof.adapters.langchain.bridge._graph_span import open_graph_span

        return open_graph_span(call.graph_run.config, call.input, self.lc_agent_name)

    async def _aspan(self, call: LangChainCallShape) -> AsyncGraphSpan:
        from hookproof.adapters.langchain.bridge._graph_span import aopen_graph_span

        return await aopen_graph_span(call.graph_run.config, call.input, self.lc_agent_name)

    def _nested_listener(self, call: LangChainCallShape) -> StepListener:
        enclosing = enclosing_stream()
        if enclosing is None:
            return UNLISTENED
        from hookproof.adapters.langchain.bridge._stream import StreamRequest

        request = StreamRequest(frozenset(), subgraphs=False, base=enclosing.namespace)
        return self._listener(call, request, suspend=False)

    def _listener(
        self, call: LangChainCallShape, request: StreamRequest, suspend: bool
    ) -> GraphStepListener:
        metadata = {"ls_integration": "langchain_create_agent"}
        if self.lc_agent_name:
            metadata["lc_agent_name"] = self.lc_agent_name
        from hookproof.adapters.langchain.bridge._stream import GraphStepListener

        return GraphStepListener(
            request,
            call.graph_run,
            output_keys=call.output_values,
            metadata=metadata,
            enclosing=enclosing_stream(),
            suspend=suspend,
            resuming=_is_resume(call.engine_input),
        )

    def _chunks(
        self, call: LangChainCallShape, context: Any, request: StreamRequest, shape: Any
    ) -> Iterator[Any]:
        span = self._span(call)
        listener = self._listener(call, request, suspend=True)
        format_chunk = _stream().format_chunk
        scope = contextvars.copy_context()
        scope.run(set_graph_run, call.graph_run)
        run = self._start_run(
            call.engine_input,
            context=call.context_for(context),
            thread_id=call.thread_id,
            sync=True,
            listener=listener,
        )
        try:
            while (result := _stepped(scope, run, listener)) is None:
                yield from (format_chunk(chunk, *shape) for chunk in request.drain())
            listener.finished(_interrupts(call, result))
            yield from (format_chunk(chunk, *shape) for chunk in request.drain())
            span.end(lambda: call.output(result))
        except GeneratorExit as closed:
            span.error(closed)
            raise  # the reader broke off: a closing generator must not yield
        except BaseException as error:
            span.error(error)
            yield from (format_chunk(chunk, *shape) for chunk in request.drain())
            raise
        finally:
            scope.run(run.close)

    async def _achunks(
        self, call: LangChainCallShape, context: Any, request: StreamRequest
    ) -> AsyncIterator[Any]:
        span = await self._aspan(call)
        listener = self._listener(call, request, suspend=False)
        woken = asyncio.Event()
        request.wake = woken.set
        scope = contextvars.copy_context()
        scope.run(set_graph_run, call.graph_run)
        run = self._start_run(
            call.engine_input,
            context=call.context_for(context),
            thread_id=call.thread_id,
            sync=False,
            listener=listener,
        )
        task = asyncio.get_running_loop().create_task(run, context=scope)
        try:
            while not task.done():
                waiter = asyncio.ensure_future(woken.wait())
                await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                woken.clear()
                for chunk in request.drain():
                    yield chunk
            error = task.exception()
            if error is not None:
                scope.run(listener.failed, error)
            else:
                listener.finished(_interrupts(call, task.result()))
            for chunk in request.drain():
                yield chunk
            result = task.result()
            await span.end(lambda: call.output(result))
        except BaseException as failed:
            await span.error(failed)
            raise
        finally:
            if not task.done():
                task.cancel()


def _is_resume(engine_input: Any) -> bool:
    return getattr(engine_input, "resume", None) is not None and not isinstance(engine_input, dict)


def _base() -> tuple[str, ...]:
    enclosing = enclosing_stream()
    return () if enclosing is None else enclosing.namespace


def _interrupts(call: LangChainCallShape, result: RunResult) -> list[Any]:
    if not result.interrupts:
        return []
    return call.interrupts(result.interrupts, call.thread_id)


def _stepped(scope: contextvars.Context, run: Any, listener: GraphStepListener) -> RunResult | None:
    """Resume the run until its next step ends (None) or it returns (its result)."""
    try:
        yielded = scope.run(run.send, None)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
    except BaseException as error:
        scope.run(listener.failed, error)
        raise
    if yielded != STEP:
        raise MissingAsyncHookError(
            "hookproof: something awaited real asynchronous work during stream(). stream() "
            "runs synchronously, so it cannot wait for it. Use `agent.astream(...)` instead."
        )
    return None


def _request(
    stream_mode: str | Sequence[str] | None,
    subgraphs: bool,
    config: Mapping[str, Any] | None,
    version: str,
) -> StreamRequest:
    modes = (
        [stream_mode or DEFAULT_MODE] if isinstance(stream_mode, str | None) else list(stream_mode)
    )
    from hookproof.adapters.langchain.bridge._stream import MODES, StreamRequest

    unknown = sorted(set(modes) - MODES)
    if unknown:
        raise UsageError(
            f"hookproof: stream_mode {unknown} is not one the reference engine streams; it "
            f"streams {sorted(MODES)}. Stream this agent on LangChain's create_agent for the "
            "others."
        )
    if version not in ("v1", "v2"):
        raise UsageError(f"hookproof: stream() takes version='v1' or 'v2', got {version!r}.")
    configurable = (config or {}).get("configurable") or {}
    from langgraph._internal._constants import CONFIG_KEY_STREAM_MESSAGES_V2

    messages_v2 = version == "v2" and bool(configurable.get(CONFIG_KEY_STREAM_MESSAGES_V2))
    return StreamRequest(frozenset(modes), subgraphs, messages_v2)


def _stream() -> Any:
    """The stream's module, loaded on the first stream (it needs LangGraph; importing the
    adapter does not)."""
    from hookproof.adapters.langchain.bridge import _stream

    return _stream
