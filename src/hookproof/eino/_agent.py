"""ChatModelAgent: Eino's agent, compiled onto the one engine."""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from hookproof._engine import Engine, Phase, RunResult, Stack, in_thread
from hookproof._engine.checkpoint import InterruptRaised
from hookproof._support.frozen import FrozenDict
from hookproof._support.untimed import untimed
from hookproof.eino._context import RunContext
from hookproof.eino._dialect import EinoDialect
from hookproof.eino._handlers import (
    AgentMiddleware,
    ToolMiddleware,
    check_handler,
    check_legacy,
    check_tool_middleware,
)
from hookproof.eino._hooks import (
    after_agent_hooks,
    after_model_hooks,
    before_model_hooks,
    start_hooks,
)
from hookproof.eino._model_layers import model_layers
from hookproof.eino._records import AgentEvent
from hookproof.eino._resume import resume_answers
from hookproof.eino._retry import Clock, ModelFailoverConfig, ModelRetryConfig
from hookproof.eino._run import AgentRun, EinoRun
from hookproof.eino._settings import DEFAULT_EINO_MAX_ITERATIONS, AgentSettings, Setting
from hookproof.eino._tool_layers import tool_layers
from hookproof.errors import EinoError, UsageError, safe_repr
from hookproof.messages import Message, coerce_messages
from hookproof.requests import NO_RESUME

__all__ = ["DEFAULT_EINO_MAX_ITERATIONS", "ChatModelAgent"]

_NO_CONTEXT = RunContext()  # immutable: each run binds a copy of its own

_NODE_PATHS = {
    Phase.BEFORE_MODEL: "ChatModel",
    Phase.MODEL: "ChatModel",
    Phase.AFTER_MODEL: "ChatModel",
    Phase.TOOLS: "ToolNode",
}


def _owners(items: Sequence[object], label: str | None = None) -> list[str]:
    """Trace names: the class name (or ``label[i]``), numbered when it repeats."""
    names = [label or type(item).__name__ for item in items]
    counts = Counter(names)
    seen: Counter[str] = Counter()
    owners = []
    for index, name in enumerate(names):
        seen[name] += 1
        if label is not None:
            owners.append(f"{label}[{index}]")
        else:
            owners.append(name if counts[name] == 1 else f"{name}#{seen[name]}")
    return owners


class ChatModelAgent:
    """Eino's ChatModelAgent on hookproof's engine: a ReAct loop whose model and tool calls
    run through the handlers (ChatModelAgentMiddleware), the legacy AgentMiddleware structs,
    the tool-call middlewares and the retry/failover layers in Eino's order.

    ``run`` and ``resume`` return an AgentRun: the events, in order, and the trace and
    FinalRequests of the run. An error of the run never escapes: it ends the stream as an
    error event. Invalid arguments to ``run``/``resume`` themselves raise UsageError.

    Parameters:
        model: ``invoke(FinalRequest)`` (hookproof.models), or ``generate(ctx, messages,
            **options)`` / ``stream(...)`` written Eino's way.
        tools: Eino tools (``info()`` plus one or more ``*_run`` methods) or ``@tool``s.
        instruction: the system message; legacy structs' additional instructions follow it.
        handlers: ChatModelAgentMiddleware instances, handlers[0] outermost.
        middlewares: legacy AgentMiddleware structs.
        max_iterations: model calls allowed per run; 0 or less means 20.
        return_directly: tool names (or a name -> flag dict) whose call ends the run.
        model_retry_config / model_failover_config: retry and failover layers.
        tool_call_middlewares: ToolMiddleware values, outside the legacy wrap_tool_calls.
        unknown_tools_handler: ``(ctx, name, arguments_json) -> str`` answering calls to
            tools the run does not have (no layer and no event sees them).
        tool_arguments_handler: ``(ctx, name, arguments_json) -> arguments_json``, applied
            to each call's arguments before every tool layer.
        callbacks: objects with on_start/on_end/on_error (see CallbackHandler) run around
            models and tools that do not run callbacks themselves.
        checkpointer: e.g. InMemoryCheckpointer(); with ``run(..., checkpoint_id=...)`` an
            ``interrupt()`` pauses the run for ``resume``.
        clock: where retry backoff sleeps; ManualClock() in tests.
    """

    name: Setting[str] = Setting()
    instruction: Setting[str] = Setting()
    tools: Setting[tuple[Any, ...]] = Setting()
    return_directly: Setting[FrozenDict] = Setting()
    max_iterations: Setting[int] = Setting()
    model_retry_config: Setting[ModelRetryConfig | None] = Setting()
    model_failover_config: Setting[ModelFailoverConfig | None] = Setting()
    unknown_tools_handler: Setting[Any] = Setting()
    tool_arguments_handler: Setting[Any] = Setting()
    callbacks: Setting[tuple[Any, ...]] = Setting()
    clock: Setting[Clock] = Setting()

    @untimed
    def __init__(
        self,
        *,
        model: Any,
        tools: Sequence[Any] = (),
        instruction: str = "",
        handlers: Sequence[Any] = (),
        middlewares: Sequence[AgentMiddleware] = (),
        max_iterations: int = DEFAULT_EINO_MAX_ITERATIONS,
        return_directly: Mapping[str, bool] | Sequence[str] | None = None,
        model_retry_config: ModelRetryConfig | None = None,
        model_failover_config: ModelFailoverConfig | None = None,
        tool_call_middlewares: Sequence[ToolMiddleware] = (),
        unknown_tools_handler: Any = None,
        tool_arguments_handler: Any = None,
        callbacks: Sequence[Any] = (),
        checkpointer: Any = None,
        clock: Clock | None = None,
        name: str = "ChatModelAgent",
        description: str = "",
    ) -> None:
        _check_model(model)
        self.description, self.model = description, model
        self._invokable_model = model if callable(getattr(model, "invoke", None)) else None
        self.handlers = tuple(handlers)
        for index, handler in enumerate(self.handlers):
            check_handler(handler, index)
        self.middlewares = tuple(check_legacy(m, i) for i, m in enumerate(middlewares))
        self.tool_call_middlewares = tuple(
            check_tool_middleware(m, f"tool_call_middlewares[{i}]")
            for i, m in enumerate(tool_call_middlewares)
        )
        self._settings = AgentSettings.checked(
            name=name,
            instruction=instruction,
            tools=tools,
            middlewares=self.middlewares,
            return_directly=return_directly,
            max_iterations=max_iterations,
            model_retry_config=model_retry_config,
            model_failover_config=model_failover_config,
            unknown_tools_handler=unknown_tools_handler,
            tool_arguments_handler=tool_arguments_handler,
            callbacks=callbacks,
            clock=clock,
        )
        self._engine = Engine(
            self._dialect(), checkpointer=checkpointer, observe=EinoDialect.provenance_notes
        )

    @property
    def checkpointer(self) -> Any:
        return self._engine.checkpointer

    @checkpointer.setter
    def checkpointer(self, value: Any) -> None:
        raise UsageError(
            "hookproof: ChatModelAgent.checkpointer is fixed when the agent is built. Use "
            "agent.with_checkpointer(checkpointer), which returns the agent saving there."
        )

    def with_checkpointer(self, checkpointer: Any) -> ChatModelAgent:
        """The same agent saving its runs in ``checkpointer`` (so a run that pauses at an
        interrupt can be resumed); this agent is left as it is."""
        clone = copy.copy(self)
        clone._engine = self._engine.with_checkpointer(checkpointer)
        return clone

    def _dialect(self) -> EinoDialect:
        handlers = list(zip(_owners(self.handlers), self.handlers, strict=True))
        legacy = list(
            zip(_owners(self.middlewares, "AgentMiddleware"), self.middlewares, strict=True)
        )
        wrappers = [(owner, m.wrap_tool_call) for owner, m in legacy if m.wrap_tool_call]
        configured_owners = _owners(self.tool_call_middlewares, "ToolCallMiddleware")
        configured = list(zip(configured_owners, self.tool_call_middlewares, strict=True))
        stack = Stack(
            on_start=start_hooks(handlers),
            before_model=before_model_hooks(handlers, legacy),
            after_model=after_model_hooks(handlers, legacy),
            after_agent=after_agent_hooks(handlers),
            model_layers=model_layers(handlers, self._settings),
            tool_layers=tool_layers(handlers, configured, wrappers, self._settings),
        )
        return EinoDialect(name=self._settings.name, model=self.model, stack=stack)

    # -- running --------------------------------------------------------------------------

    def run(
        self,
        messages: Sequence[Any],
        ctx: RunContext | None = None,
        *,
        enable_streaming: bool = False,
        checkpoint_id: str | None = None,
    ) -> AgentRun:
        """Run on ``messages`` (hookproof messages, (role, text) pairs or AgenticMessages).

        With a checkpointer and ``checkpoint_id``, an ``interrupt()`` pauses the run; resume
        it with ``resume(checkpoint_id, value)``. A run always starts afresh.
        """
        self._check_input(messages)
        input_messages = tuple(_input_messages(messages))
        return self._execute(ctx, enable_streaming, checkpoint_id, input_messages, NO_RESUME)

    def resume(
        self,
        checkpoint_id: str,
        resume_value: Any = None,
        ctx: RunContext | None = None,
        *,
        enable_streaming: bool = False,
        targets: Mapping[str, Any] | None = None,
    ) -> AgentRun:
        """Continue a run that paused at ``interrupt()``: before_agent runs again, then the
        step that interrupted, where ``interrupt()`` now returns ``resume_value``. A pause
        with several interrupts (tool calls of one message) is answered whole: each gets
        ``resume_value``, or, with ``targets={interrupt.id: value, ...}`` (Eino's
        ResumeParams.Targets), its own; one left out interrupts again."""
        answers = resume_answers(self.checkpointer, checkpoint_id, resume_value, targets)
        return self._execute(ctx, enable_streaming, checkpoint_id, None, answers)

    @staticmethod
    def _check_input(messages: Any) -> None:
        if type(messages) is list or type(messages) is tuple:
            return  # the usual input: no abstract-class checks
        if isinstance(messages, str | bytes | Mapping) or not isinstance(messages, Sequence):
            raise UsageError(
                f"hookproof: ChatModelAgent.run() takes a list of messages, got "
                f"{type(messages).__name__}. Example: agent.run([('user', 'hello')])."
            )

    async def arun(
        self,
        messages: Sequence[Any],
        ctx: RunContext | None = None,
        *,
        enable_streaming: bool = False,
        checkpoint_id: str | None = None,
    ) -> AgentRun:
        """Like run, without blocking the running event loop: Eino's handlers and tools are
        synchronous, so the whole run goes to one helper thread, reused from run to run
        (concurrent aruns run in threads of their own; the model's invoke() is called)."""
        self._check_input(messages)
        messages_in = tuple(_input_messages(messages))
        return await in_thread(  # type: ignore[no-any-return]
            self._execute, ctx, enable_streaming, checkpoint_id, messages_in, NO_RESUME
        )

    async def aresume(
        self,
        checkpoint_id: str,
        resume_value: Any = None,
        ctx: RunContext | None = None,
        *,
        enable_streaming: bool = False,
        targets: Mapping[str, Any] | None = None,
    ) -> AgentRun:
        """Like resume, without blocking the running event loop (see arun)."""
        answers = resume_answers(self.checkpointer, checkpoint_id, resume_value, targets)
        return await in_thread(  # type: ignore[no-any-return]
            self._execute, ctx, enable_streaming, checkpoint_id, None, answers
        )

    def _execute(
        self,
        ctx: RunContext | None,
        streaming: bool,
        checkpoint_id: str | None,
        input_messages: tuple[Message, ...] | None,
        resume: Any,
    ) -> AgentRun:
        run = self._start(ctx, streaming, input_messages)
        try:  # from here on a failure is the run's, reported as an event
            result = self._engine.run_sync(
                None,
                run,
                thread_id=checkpoint_id,
                resume=resume,
                fresh=input_messages is not None,
                bind=run.exec.bind,
            )
        except Exception as error:  # noqa: BLE001 - Eino reports every failure as an event
            return self._finish(run, checkpoint_id, error=error)
        return self._finish(run, checkpoint_id, result=result)

    def _start(
        self,
        ctx: RunContext | None,
        streaming: bool,
        input_messages: tuple[Message, ...] | None,
    ) -> EinoRun:
        """The run's data (a bad ctx is the caller's error, raised)."""
        if ctx is not None and type(ctx) is not RunContext and isinstance(ctx, Mapping):
            ctx = RunContext(ctx)
        if ctx is not None and not isinstance(ctx, RunContext):
            raise UsageError(
                f"hookproof: ctx must be a hookproof.eino.RunContext (or a dict of its values), "
                f"got {type(ctx).__name__}."
            )
        return EinoRun(
            self._settings,
            ctx or _NO_CONTEXT,
            streaming=streaming,
            input_messages=input_messages,
            invokable_model=self._invokable_model,
        )

    def _finish(
        self,
        run: EinoRun,
        checkpoint_id: str | None,
        *,
        result: RunResult | None = None,
        error: Exception | None = None,
    ) -> AgentRun:
        try:
            if error is not None:
                result = self._failed(run, error)
            else:
                assert result is not None
                if result.interrupts:
                    run.emit_interrupts(result)
        finally:
            run.exec.finish()
        return AgentRun(run.exec.events, result, checkpoint_id=checkpoint_id)

    def _failed(self, run: EinoRun, error: BaseException) -> RunResult:
        handle = run.exec.handle
        assert handle is not None  # bound before anything can fail
        path = _NODE_PATHS.get(handle.phase)
        if isinstance(error, InterruptRaised):
            error = EinoError(
                f"hookproof: interrupt() was called in {handle.location}, but this run cannot "
                "pause: build the agent with checkpointer=InMemoryCheckpointer() and run it "
                "with run(..., checkpoint_id=...) to save its place for resume()."
            )
        run.exec.emit(AgentEvent(error=error, node_path=path))
        return handle.result()

    def __repr__(self) -> str:
        names = [type(h).__name__ for h in self.handlers]
        return f"ChatModelAgent(name={self.name!r}, tools={len(self.tools)}, handlers={names})"


def _input_messages(messages: Sequence[Any]) -> list[Message]:
    checked = []
    for index, item in enumerate(coerce_messages(messages, where="run(messages)")):
        if not isinstance(item, Message):
            raise UsageError(
                f"hookproof: run(messages)[{index}] is a RemoveMessage; a run starts from the "
                "messages given, so leave out the ones it should not see."
            )
        checked.append(item)
    return checked


def _check_model(model: object) -> None:
    methods = ("invoke", "generate", "stream")
    if model is None or not any(callable(getattr(model, name, None)) for name in methods):
        raise UsageError(
            f"hookproof: ChatModelAgent(model=...) got {safe_repr(model, 60)}; "
            "it needs a model with "
            "invoke(FinalRequest), e.g. RecordingModel(ScriptedModel([...])) from "
            "hookproof.models, or one written Eino's way with generate(ctx, messages, "
            "**options) / stream(...)."
        )
