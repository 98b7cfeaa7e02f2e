"""The one agent engine: the model <-> tools loop and the onion composition of layers.

Dialects (the LangChain-shaped middleware, later Eino handlers) compile their hooks into a
Stack of NodeHooks and WrapLayers; the engine never knows which dialect it runs.

The loop is written once, as coroutines. ``invoke`` drives it without an event loop through
SyncExec, whose steps never suspend; ``ainvoke`` awaits it with AsyncExec. A sync wrap hook
under ainvoke runs in a helper thread whose handler hands the inner layers back to the loop,
so sync and async hooks mix freely. Tool calls of one model turn run one after another, in
the order the model gave them, so the trace is the same on every run.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, cast

from pydantic import ValidationError

from hookproof._engine.checkpoint import (
    Checkpoint,
    Interrupt,
    InterruptRaised,
    ResumeValues,
    resuming,
)
from hookproof._engine.probe import PROBE, Probe
from hookproof._engine.state import StateSpec
from hookproof._frozen import FrozenDict, FrozenList
from hookproof._guard import check_model
from hookproof.context import Runtime, ToolRuntime
from hookproof.errors import (
    InvalidInputError,
    MaxIterationsExceeded,
    MissingAsyncHookError,
    ToolError,
    UnexecutableToolError,
    UsageError,
    ordinal,
)
from hookproof.messages import AssistantMessage, Message, ToolCall, ToolMessage, text_message
from hookproof.tools import Tool, ToolSchema, tool_result_text, validation_message
from hookproof.trace import Trace, TraceRecorder
from hookproof.vocabulary import (
    NO_RESUME,
    Command,
    ExtendedModelResponse,
    FinalRequest,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
)

Handler = Callable[[Any], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class NodeHook:
    """A hook run at one point of the loop: (state, runtime) -> None | dict | Command."""

    owner: str
    hook: str
    sync: Callable[..., Any] | None
    async_: Callable[..., Awaitable[Any]] | None


@dataclass(frozen=True, slots=True)
class WrapLayer:
    """A layer around the model or tool call: (request, handler) -> response.

    ``raw`` layers belong to a dialect that passes its own request and response types between
    its layers; the engine then checks neither. ``when(request)`` false skips the layer for
    that call (it is not entered and leaves no trace).
    """

    owner: str
    hook: str
    sync: Callable[..., Any] | None
    async_: Callable[..., Awaitable[Any]] | None
    raw: bool = False
    when: Callable[[Any], bool] | None = None


@dataclass(frozen=True, slots=True)
class Stack:
    """Compiled hooks, each tuple in the order it runs (model/tool layers: outermost first)."""

    on_start: tuple[NodeHook, ...] = ()  # every run and every resume, before the loop
    before_agent: tuple[NodeHook, ...] = ()
    before_model: tuple[NodeHook, ...] = ()
    after_model: tuple[NodeHook, ...] = ()
    after_agent: tuple[NodeHook, ...] = ()
    model_layers: tuple[WrapLayer, ...] = ()
    tool_layers: tuple[WrapLayer, ...] = ()


class ModelBoundary(Protocol):
    """Where a dialect's model-call type meets the engine's innermost model call."""

    def request(self, call: Any) -> ModelRequest: ...

    def response(self, call: Any, response: ModelResponse) -> Any: ...


class RunResult:
    """What a run produced: final messages, final state, the trace and the final requests.

    The trace is recorded as plain rows during the run and turned into a Trace on first use.
    """

    __slots__ = (
        "_trace",
        "_trace_source",
        "final_requests",
        "interrupts",
        "messages",
        "state",
        "thread_id",
    )

    def __init__(
        self,
        messages: tuple[Message, ...],
        state: FrozenDict,
        trace: TraceRecorder,
        final_requests: tuple[FinalRequest, ...] = (),
        interrupts: tuple[Interrupt, ...] = (),
        thread_id: str | None = None,
    ) -> None:
        """``interrupts`` is non-empty when the run paused; resume it on ``thread_id``."""
        self.interrupts = interrupts
        self.thread_id = thread_id
        self.messages = messages
        self.state = state
        self.final_requests = final_requests
        self._trace_source: TraceRecorder | None = trace
        self._trace: Trace | None = None

    @property
    def trace(self) -> Trace:
        if self._trace is None:
            assert self._trace_source is not None
            self._trace = self._trace_source.freeze()
            self._trace_source = None
        return self._trace

    @property
    def text(self) -> str:
        """The text of the last message (the agent's answer on a normal finish)."""
        return self.messages[-1].text if self.messages else ""

    def __repr__(self) -> str:
        return f"RunResult(messages={len(self.messages)}, text={self.text!r:.60})"


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


def _missing_sync(owner: str, hook: str) -> MissingAsyncHookError:
    return MissingAsyncHookError(
        f"hookproof: middleware {owner!r} defines only a{hook}, but the agent was run with "
        f"invoke(), which is synchronous. Define {hook} as well, or run with ainvoke()."
    )


class SyncExec:
    """Steps for invoke(): everything is called directly, nothing suspends."""

    async def node(self, hook: NodeHook, state: FrozenDict, runtime: Runtime[Any]) -> Any:
        if hook.sync is None:
            raise _missing_sync(hook.owner, hook.hook)
        return hook.sync(state, runtime)

    async def wrap(self, layer: WrapLayer, request: Any, inner: Handler) -> Any:
        if layer.sync is None:
            raise _missing_sync(layer.owner, layer.hook)
        return layer.sync(request, lambda changed: drive(inner(changed)))  # type: ignore[arg-type]

    async def model(self, model: Any, request: FinalRequest) -> Any:
        return model.invoke(request)

    async def tool(self, tool: Tool, kwargs: dict[str, Any]) -> Any:
        if tool.func is not None:
            return tool.func(**kwargs)
        assert tool.coroutine is not None
        return asyncio.run(cast(Coroutine[Any, Any, Any], tool.coroutine(**kwargs)))

    async def pause(self, probe: Probe, label: str) -> None:
        probe.reached(label)


class AsyncExec(SyncExec):
    """Steps for ainvoke(): async twins first, sync hooks still honoured."""

    async def node(self, hook: NodeHook, state: FrozenDict, runtime: Runtime[Any]) -> Any:
        if hook.async_ is not None:
            return await hook.async_(state, runtime)
        return hook.sync(state, runtime)  # type: ignore[misc]

    async def wrap(self, layer: WrapLayer, request: Any, inner: Handler) -> Any:
        if layer.async_ is not None:
            return await layer.async_(request, inner)
        loop = asyncio.get_running_loop()

        def handler(changed: Any) -> Any:
            return asyncio.run_coroutine_threadsafe(inner(changed), loop).result()  # type: ignore[arg-type]

        return await _in_thread(layer.sync, request, handler)  # type: ignore[arg-type]

    async def model(self, model: Any, request: FinalRequest) -> Any:
        ainvoke = getattr(model, "ainvoke", None)
        return await ainvoke(request) if ainvoke is not None else model.invoke(request)

    async def tool(self, tool: Tool, kwargs: dict[str, Any]) -> Any:
        if tool.coroutine is not None:
            return await tool.coroutine(**kwargs)
        return tool.func(**kwargs)  # type: ignore[misc]

    async def pause(self, probe: Probe, label: str) -> None:
        await probe.areached(label)


async def _in_thread(func: Callable[..., Any], *args: Any) -> Any:
    """Run func in its own thread (never a bounded pool: nested sync layers each block one)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def work() -> None:
        try:
            result = context.run(func, *args)
        except BaseException as error:  # noqa: BLE001 - handed to the awaiting coroutine
            loop.call_soon_threadsafe(_settle, future, None, error)
        else:
            loop.call_soon_threadsafe(_settle, future, result, None)

    threading.Thread(target=work, name="hookproof-sync-layer", daemon=True).start()
    return await future


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class Engine:
    """Runs one agent: the loop, the layers, the reducers and the trace."""

    def __init__(
        self,
        *,
        stack: Stack,
        model: Any,
        tools: tuple[Tool, ...],
        system_message: Any,
        state: StateSpec,
        max_iterations: int,
        name: str,
        checkpointer: Any = None,
        execute_tool: Callable[[Any], Any] | None = None,
        model_boundary: ModelBoundary | None = None,
        answers_after_call_only: bool = False,
    ) -> None:
        """``execute_tool(request)``, when given, replaces the innermost tool execution (a
        dialect whose tools are not hookproof Tools runs them itself, inside every layer).
        ``model_boundary`` converts a dialect's model-call request to the ModelRequest the
        innermost call records, and the ModelResponse back to the dialect's result."""
        self.execute_tool = execute_tool
        self.model_boundary = model_boundary
        self.answers_after_call_only = answers_after_call_only
        self.stack = stack
        self.model = model
        self.tools = tools
        self.request_tools: FrozenList[Tool | ToolSchema] = FrozenList(tools)
        self.sorted_tool_names = tuple(sorted(item.name for item in tools))
        self.tools_by_name = {item.name: item for item in tools}
        self.system_message = system_message
        self.state = state
        self.max_iterations = max_iterations
        self.name = name
        self.checkpointer = checkpointer

    async def run(
        self,
        initial: dict[str, Any] | None,
        context: Any,
        executor: SyncExec,
        *,
        thread_id: str | None = None,
        resume: Any = NO_RESUME,
        fresh: bool = False,
        bind: Callable[[RunHandle], None] | None = None,
    ) -> RunResult:
        """Run from ``initial`` input, or resume a paused thread with ``resume``.

        ``fresh`` starts from ``initial`` alone even when the thread has a checkpoint (its next
        save replaces it). ``bind`` receives a RunHandle before anything runs, so a dialect
        can keep per-run data in the run's state.
        """
        run = _Run(self, executor, Runtime(context=context, agent_name=self.name))
        run.thread_id = thread_id
        if bind is not None:
            bind(RunHandle(run))
        run.trace.record("agent", "run", "enter", data={"agent": self.name})
        phase, index = self._start(run, initial, resume, fresh)
        with resuming(run.resume_values):
            await run.loop(phase, index)
        if not run.interrupts:
            run.save()
        return run.result()

    def _start(
        self, run: _Run, initial: dict[str, Any] | None, resume: Any, fresh: bool
    ) -> tuple[str, int]:
        checkpoint = None if fresh else self._checkpoint(run.thread_id)
        if resume is not NO_RESUME:
            if checkpoint is None or not checkpoint.pending:
                raise InvalidInputError(
                    f"hookproof: Command(resume=...) was given for thread {run.thread_id!r}, "
                    "which has no pending interrupt. Resume only a run that returned "
                    "interrupts, on the same agent, checkpointer and thread_id."
                )
            run.restore(checkpoint)
            answered = list(checkpoint.extra.get("resume_values", ()))
            run.resume_values = ResumeValues([*answered, resume])
            run.resume_step = (checkpoint.phase, checkpoint.hook_index)
            return checkpoint.phase, checkpoint.hook_index
        if checkpoint is not None:
            if checkpoint.pending:
                raise InvalidInputError(
                    f"hookproof: thread {run.thread_id!r} is paused at an interrupt; resume it "
                    "with agent.invoke(Command(resume=...), thread_id=...) before sending new "
                    "input."
                )
            run.restore(checkpoint)
        if initial:
            run.update(initial, source="input")
        return "before_agent", 0

    def _checkpoint(self, thread_id: str | None) -> Checkpoint | None:
        if thread_id is None or self.checkpointer is None:
            return None
        return self.checkpointer.get(thread_id)  # type: ignore[no-any-return]


class RunHandle:
    """What a dialect may touch of a live run: its state, state updates and trace events."""

    __slots__ = ("_run",)

    def __init__(self, run: _Run) -> None:
        self._run = run

    @property
    def state(self) -> FrozenDict:
        return self._run.snapshot()

    @property
    def location(self) -> str:
        """The hook, layer, model or tool running now (``agent`` between steps)."""
        return self._run.source

    @property
    def phase(self) -> str:
        """The loop phase running now (before_agent, before_model, model, ..., done)."""
        return self._run.phase

    def update(self, update: Mapping[str, Any], *, source: str) -> None:
        self._run.update(update, source=source)

    def result(self) -> RunResult:
        """What the run produced so far (a dialect reports a failed run with its trace)."""
        return self._run.result()

    def record(self, hook: str, owner: str | None, data: Mapping[str, Any]) -> None:
        """Record a dialect event (an emitted agent event, a retry) in the trace."""
        self._run.trace.record("event", hook, "update", owner, data)


class _Run:
    """The state of one invocation (an engine is shared; a run is not)."""

    def __init__(self, engine: Engine, executor: SyncExec, runtime: Runtime[Any]) -> None:
        self.engine = engine
        self.executor = executor
        self.runtime = runtime
        self.trace = TraceRecorder()
        self.values: dict[str, Any] = {"messages": FrozenList()}
        self._snapshot: FrozenDict | None = None
        self.final_requests: list[FinalRequest] = []
        self.model_commands: list[Command] = []
        self.thread_id: str | None = None
        self.phase, self.hook_index, self.model_calls = "before_agent", 0, 0
        self.source = "agent"
        self.interrupts: tuple[Interrupt, ...] = ()
        self.finished_tools: dict[str, Any] = {}
        self.resume_values = ResumeValues()
        self.resume_step: tuple[str, int] | None = None
        self.probe = PROBE.get()
        self.model_chain = self._chain(engine.stack.model_layers, self._call_model)
        self.tool_chain = self._chain(engine.stack.tool_layers, self._call_tool)

    # -- the loop -------------------------------------------------------------------------

    async def loop(self, phase: str = "before_agent", index: int = 0) -> None:
        steps = {
            "before_agent": self._before_agent,
            "before_model": self._before_model,
            "model": self._model_phase,
            "after_model": self._after_model,
            "tools": self._tools_phase,
            "after_agent": self._after_agent,
        }
        try:
            await self.start()  # start hooks: every run and resume, before the loop
            while phase != "done":
                self.phase, self.hook_index = phase, index
                self.step_started(phase, index)
                phase, index = await steps[phase](index), 0
        except InterruptRaised as raised:
            if not self.can_pause:
                self._record_failure(raised)
                raise
            self.pause(raised.value)
            return
        except BaseException as error:
            self._record_failure(error)
            raise
        self.trace.record("agent", "run", "exit", data={"agent": self.engine.name})

    def _record_failure(self, error: BaseException) -> None:
        """A failed run still closes its trace, so a dialect can report it whole."""
        data = {"agent": self.engine.name, **_error_data(error)}
        self.trace.record("agent", "run", "error", None, data)

    async def start(self) -> None:
        """Start hooks run on every run and resume; they never pause or jump."""
        for hook in self.engine.stack.on_start:
            await self._node(hook)

    async def _before_agent(self, index: int) -> str:
        jump = await self._nodes(self.engine.stack.before_agent, index)
        return "after_agent" if jump == "end" else "before_model"

    async def _before_model(self, index: int) -> str:
        jump = await self._nodes(self.engine.stack.before_model, index)
        return {"end": "after_agent", "tools": "tools"}.get(jump or "", "model")

    async def _model_phase(self, _index: int) -> str:
        self._check_iterations(self.model_calls + 1)
        await self._model_step()
        self.model_calls += 1
        return "after_model"

    async def _after_model(self, index: int) -> str:
        jump = await self._nodes(self.engine.stack.after_model, index)
        return {"end": "after_agent", "model": "before_model"}.get(jump or "", "tools")

    async def _tools_phase(self, _index: int) -> str:
        jump = await self._tool_step()
        return "after_agent" if jump == "end" else "before_model"

    async def _after_agent(self, index: int) -> str:
        await self._nodes(self.engine.stack.after_agent, index)
        return "done"

    # -- pausing and resuming ---------------------------------------------------------------

    def step_started(self, phase: str, index: int) -> None:
        """Answers belong to the step that was paused; any other step starts without them."""
        if self.resume_step is None and not self.resume_values.values:
            return
        if self.resume_step != (phase, index):
            self.resume_values.reset()
            self.resume_step = None

    @property
    def can_pause(self) -> bool:
        return self.thread_id is not None and self.engine.checkpointer is not None

    def pause(self, value: Any) -> None:
        pending = Interrupt(value=value, source=self.source)
        self.interrupts = (pending,)
        self.trace.record("agent", "interrupt", "update", None, {"source": self.source})
        self.save(phase=self.phase, index=self.hook_index)

    def save(self, *, phase: str = "done", index: int = 0) -> None:
        if not self.can_pause:
            return
        checkpoint = Checkpoint(
            values=self.snapshot(),
            phase=phase,
            hook_index=index,
            model_calls=self.model_calls,
            interrupts=self.interrupts,
            extra=self._pause_extra() if self.interrupts else FrozenDict(),
        )
        self.engine.checkpointer.put(self.thread_id, checkpoint)

    def _pause_extra(self) -> FrozenDict:
        answered = self.resume_values.values[: self.resume_values.used]
        return FrozenDict(
            {"finished_tools": dict(self.finished_tools), "resume_values": list(answered)}
        )

    def restore(self, checkpoint: Checkpoint) -> None:
        self.values = dict(checkpoint.values)
        self._snapshot = None
        self.model_calls = checkpoint.model_calls if checkpoint.pending else 0
        if checkpoint.pending:
            self.finished_tools = dict(checkpoint.extra.get("finished_tools", {}))

    def _check_iterations(self, model_calls: int) -> None:
        limit = self.engine.max_iterations
        if model_calls > limit:
            raise MaxIterationsExceeded(
                f"hookproof: agent {self.engine.name!r} was about to call the model a "
                f"{ordinal(model_calls)} time, over max_iterations={limit}. The model keeps asking "
                "for tools; check the script or the loop, or raise max_iterations."
            )

    async def _model_step(self) -> None:
        request = ModelRequest(
            model=self.engine.model,
            messages=self.values["messages"],
            system_message=self.engine.system_message,
            tools=self.engine.request_tools,
            state=self.snapshot(),
            runtime=self.runtime,
        )
        self.model_commands.clear()
        response = await self.model_chain(request)
        self.update({"messages": list(response.result)}, source="model")
        for command in self.model_commands:
            if command.update:
                self.update(command.update, source="wrap_model_call")

    async def _tool_step(self) -> str | None:
        last_ai = self._last_assistant()
        if last_ai is None or not last_ai.tool_calls:
            return "end"
        calls = self._pending_calls(last_ai)
        state = self.snapshot()
        results = [await self._tool_result(i, call, state) for i, call in enumerate(calls)]
        self.finished_tools.clear()
        jump: str | None = None
        for result in results:
            jump = self._apply_tool_result(result) or jump
        return_direct = any(
            (tool := self.engine.tools_by_name.get(call.name)) is not None and tool.return_direct
            for call in calls
        )
        return "end" if return_direct else jump

    async def _tool_result(self, index: int, call: ToolCall, state: FrozenDict) -> Any:
        """Run one call, or reuse its result when a resumed step already ran it."""
        key = f"{index}:{call.id or call.name}"  # by position: ids may repeat or be missing
        if key not in self.finished_tools:
            result = await self.tool_chain(self._tool_request(call, state))
            self.finished_tools[key] = _checked_tool_result(result, call)
        return self.finished_tools[key]

    def _last_assistant(self) -> AssistantMessage | None:
        for item in reversed(self.values["messages"]):
            if isinstance(item, AssistantMessage):
                return item
        return None

    def _pending_calls(self, last_ai: AssistantMessage) -> list[ToolCall]:
        """Calls of the last assistant message without an answer. When a hook answered all of
        them (a human rejected a call, say), none run and the model is asked again.

        LangChain counts a tool message anywhere in the history as an answer; a dialect with
        ``answers_after_call_only`` counts only those after the assistant message, so a
        provider that reuses call ids across turns still gets every call run."""
        messages = list(self.values["messages"])
        if self.engine.answers_after_call_only:
            messages = messages[_last_index(messages, last_ai) + 1 :]
        answered = {item.tool_call_id for item in messages if isinstance(item, ToolMessage)}
        return [call for call in last_ai.tool_calls if call.id not in answered]

    def _tool_request(self, call: ToolCall, state: FrozenDict) -> ToolCallRequest:
        runtime = ToolRuntime(
            context=self.runtime.context, state=state, tool_call_id=call.id, tool_call=call
        )
        tool = self.engine.tools_by_name.get(call.name)
        return ToolCallRequest(tool_call=call, tool=tool, state=state, runtime=runtime)

    def _apply_tool_result(self, result: Any) -> str | None:
        if isinstance(result, Command):
            if result.update:
                self.update(result.update, source="tool")
            return result.goto
        self.update({"messages": [result]}, source="tool")
        return None

    # -- node hooks and state -------------------------------------------------------------

    async def _nodes(self, hooks: tuple[NodeHook, ...], start: int = 0) -> str | None:
        if not hooks:
            return None
        for index in range(start, len(hooks)):
            self.hook_index = index
            self.step_started(self.phase, index)
            jump = await self._node(hooks[index])
            if jump is not None:
                return jump  # a jump leaves the phase: later hooks of this phase do not run
        return None

    async def _node(self, hook: NodeHook) -> str | None:
        self.source = f"{hook.owner}.{hook.hook}"
        if self.probe is not None:
            await self.executor.pause(self.probe, self.source)
        self.trace.record("hook", hook.hook, "enter", hook.owner)
        try:
            outcome = await self.executor.node(hook, self.snapshot(), self.runtime)
        except BaseException as error:
            self.trace.record("hook", hook.hook, "error", hook.owner, _error_data(error))
            raise
        self.trace.record("hook", hook.hook, "exit", hook.owner)
        return self._apply_node_outcome(outcome, hook.owner, hook.hook)

    def _apply_node_outcome(self, outcome: Any, owner: str, hook: str) -> str | None:
        source = f"{owner}.{hook}"
        if outcome is None:
            return None
        if isinstance(outcome, Command):
            if outcome.update:
                self.update(outcome.update, source=hook, owner=owner)
            return outcome.goto
        if isinstance(outcome, Mapping):
            update = dict(outcome)
            jump = update.pop("jump_to", None)
            if update:
                self.update(update, source=hook, owner=owner)
            return None if jump is None else str(jump)
        raise UsageError(
            f"hookproof: {source} returned {type(outcome).__name__}; a node hook returns "
            "None, a dict of state updates, or Command(update=...)."
        )

    def update(self, update: Mapping[str, Any], *, source: str, owner: str | None = None) -> None:
        where = f"{owner}.{source}" if owner else source
        keys = self.engine.state.apply(self.values, update, where)
        self._snapshot = None
        self.trace.record("state", "update", "update", owner, {"by": source, "keys": tuple(keys)})

    def snapshot(self) -> FrozenDict:
        if self._snapshot is None:
            self._snapshot = FrozenDict(self.values)
        return self._snapshot

    # -- wrap layers ----------------------------------------------------------------------

    def _chain(self, layers: tuple[WrapLayer, ...], innermost: Handler) -> Handler:
        handler = innermost
        for layer in reversed(layers):
            handler = self._wrap(layer, handler)
        return handler

    def _wrap(self, layer: WrapLayer, inner: Handler) -> Handler:
        trace, executor = self.trace, self.executor
        expected = ModelRequest if layer.hook == "wrap_model_call" else ToolCallRequest
        origin = [0]  # commands recorded before this layer's current call

        async def checked_inner(request: Any) -> Any:
            if not layer.raw and not isinstance(request, expected):
                raise UsageError(
                    f"hookproof: {layer.owner}.{layer.hook} called its handler with a "
                    f"{type(request).__name__}; pass the {expected.__name__} it received "
                    "(or request.override(...))."
                )
            # A retry discards what inner layers said during the failed attempt.
            del self.model_commands[origin[0] :]
            try:
                return await inner(request)
            finally:
                self.source = f"{layer.owner}.{layer.hook}"  # back in this layer

        async def layer_call(request: Any) -> Any:
            if layer.when is not None and not layer.when(request):
                return await inner(request)
            origin[0] = len(self.model_commands)
            self.source = f"{layer.owner}.{layer.hook}"
            if self.probe is not None:
                await executor.pause(self.probe, self.source)
            trace.record("layer", layer.hook, "enter", layer.owner)
            try:
                outcome = await executor.wrap(layer, request, checked_inner)
            except BaseException as error:
                trace.record("layer", layer.hook, "error", layer.owner, _error_data(error))
                raise
            trace.record("layer", layer.hook, "exit", layer.owner)
            if layer.raw:
                return outcome
            normalised = _normalise(layer, outcome)
            if isinstance(normalised, ExtendedModelResponse):
                if normalised.command is not None:
                    _check_no_goto(normalised.command, layer.owner)
                    self.model_commands.append(normalised.command)
                return normalised.model_response
            return normalised

        return layer_call

    # -- the innermost calls --------------------------------------------------------------

    async def _call_model(self, call: Any) -> Any:
        boundary = self.engine.model_boundary
        if boundary is None:
            return await self._model_call(call)
        return boundary.response(call, await self._model_call(boundary.request(call)))

    async def _model_call(self, request: ModelRequest) -> ModelResponse:
        self._check_executable(request)
        check_model(request.model)
        final = FinalRequest.from_request(request)
        self.final_requests.append(final)
        name = final.model
        if self.probe is not None:
            await self.executor.pause(self.probe, f"model {name}")
        data = {"model": name, "tools": self._tool_names(request)}
        self.trace.record("model", "model", "enter", None, data)
        try:
            reply = await self.executor.model(request.model, final)
        except BaseException as error:
            self.trace.record("model", "model", "error", None, _error_data(error))
            raise
        response = _as_model_response(reply, name)
        message = response.message
        calls = tuple(call.name for call in message.tool_calls) if message else ()
        self.trace.record("model", "model", "exit", None, {"model": name, "tool_calls": calls})
        return response

    def _tool_names(self, request: ModelRequest) -> tuple[str, ...]:
        if request.tools is self.engine.request_tools:
            return self.engine.sorted_tool_names
        return tuple(sorted(item.name for item in request.tools))

    def _check_executable(self, request: ModelRequest) -> None:
        if request.tools is self.engine.request_tools or self.engine.stack.tool_layers:
            return
        known = self.engine.tools_by_name
        unknown = sorted(item.name for item in request.tools if item.name not in known)
        if unknown:
            owners = [layer.owner for layer in self.engine.stack.model_layers]
            raise UnexecutableToolError(
                f"hookproof: the model request shows tools {unknown} that this agent cannot "
                f"execute: they are not registered in tools= and no middleware has "
                f"wrap_tool_call (wrap_model_call layers: {owners}). The model could call them "
                "and every call would fail. A tool added at run time needs both hooks: "
                "wrap_model_call to show its schema and wrap_tool_call to execute it; or "
                "register it in create_agent(tools=[...])."
            )

    async def _call_tool(self, request: ToolCallRequest) -> ToolMessage | Command:
        call = request.tool_call
        call_id = call.id or ""
        self.source = f"tool {call.name}"
        if self.probe is not None:
            await self.executor.pause(self.probe, self.source)
        data = {"tool": call.name, "call_id": call_id}
        self.trace.record("tool", "tool", "enter", None, data)
        try:
            result = await self._execute(request, call_id)
        except BaseException as error:
            self.trace.record("tool", "tool", "error", None, {**data, **_error_data(error)})
            raise
        status = "command" if isinstance(result, Command) else getattr(result, "status", "success")
        self.trace.record("tool", "tool", "exit", None, {**data, "status": status})
        return result

    async def _execute(self, request: ToolCallRequest, call_id: str) -> ToolMessage | Command:
        if self.engine.execute_tool is not None:
            return self.engine.execute_tool(request)  # type: ignore[no-any-return]
        call, tool = request.tool_call, request.tool
        if tool is None:
            valid = ", ".join(sorted(self.engine.tools_by_name))
            text = f"Error: {call.name} is not a valid tool, try one of [{valid}]."
            return _error_message(text, call_id, call.name)
        runtime = request.runtime or ToolRuntime(state=request.state, tool_call_id=call_id)
        try:
            kwargs = tool.prepare(call.args, runtime)
        except ValidationError as error:
            return _error_message(validation_message(call.name, error), call_id, call.name)
        try:
            value = await self.executor.tool(tool, kwargs)
        except ToolError as error:
            return _error_message(str(error), call_id, call.name)
        return _tool_message(value, call_id, call.name)

    def result(self) -> RunResult:
        return RunResult(
            messages=tuple(self.values["messages"]),
            state=self.snapshot(),
            trace=self.trace,
            final_requests=tuple(self.final_requests),
            interrupts=self.interrupts,
            thread_id=self.thread_id,
        )


def _last_index(messages: list[Message], message: Message) -> int:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index] is message:
            return index
    return -1


def _error_data(error: BaseException) -> dict[str, str]:
    return {"error": type(error).__name__}


def _check_no_goto(command: Command, owner: str) -> None:
    if command.goto is not None:
        raise UsageError(
            f"hookproof: {owner}.wrap_model_call returned a Command with goto={command.goto!r}; "
            "a wrap hook can update state but not jump. Return {'jump_to': ...} from an "
            "after_model hook instead."
        )


def _checked_tool_result(result: Any, call: ToolCall) -> Any:
    """A Command from a tool must answer the call with a ToolMessage, or the conversation
    would hold a tool call without a result (providers reject that)."""
    if not isinstance(result, Command):
        return result
    messages = (result.update or {}).get("messages", ())
    items = messages if isinstance(messages, list | tuple) else [messages]
    if any(isinstance(m, ToolMessage) and m.tool_call_id == (call.id or "") for m in items):
        return result
    raise InvalidInputError(
        f"hookproof: tool {call.name!r} returned a Command without a ToolMessage for its call "
        f"{call.id!r}. The model's tool call would stay unanswered. Put "
        f"ToolMessage(content=..., tool_call_id=runtime.tool_call_id) in "
        "Command(update={'messages': [...]})."
    )


def _tool_message(value: Any, call_id: str, name: str) -> ToolMessage | Command:
    if isinstance(value, Command):
        return value
    if isinstance(value, ToolMessage):
        return value if value.tool_call_id == call_id else value.override(tool_call_id=call_id)
    return text_message(ToolMessage, tool_result_text(value), tool_call_id=call_id, name=name)


def _error_message(text: str, call_id: str, name: str) -> ToolMessage:
    return text_message(ToolMessage, text, tool_call_id=call_id, name=name, status="error")


def _as_model_response(reply: Any, model: str) -> ModelResponse:
    if isinstance(reply, ModelResponse):
        return reply
    if isinstance(reply, AssistantMessage):
        return ModelResponse(result=(reply,))
    raise UsageError(
        f"hookproof: model {model!r} returned {type(reply).__name__}; a model's invoke() "
        "must return an AssistantMessage."
    )


def _normalise(layer: WrapLayer, outcome: Any) -> Any:
    if layer.hook == "wrap_model_call":
        if isinstance(outcome, ModelResponse | ExtendedModelResponse):
            return outcome
        if isinstance(outcome, AssistantMessage):
            return ModelResponse(result=(outcome,))
        expected = "a ModelResponse, an AssistantMessage or an ExtendedModelResponse"
    else:
        if isinstance(outcome, ToolMessage | Command):
            return outcome
        expected = "a ToolMessage or a Command"
    raise UsageError(
        f"hookproof: {layer.owner}.{layer.hook} returned {type(outcome).__name__}; it must "
        f"return {expected} (usually what handler(request) returned)."
    )
