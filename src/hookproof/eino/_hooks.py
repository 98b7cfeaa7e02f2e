"""The node hooks of the Eino dialect: run start (before_agent), the steps around each model
call (iteration check, state rewrites, the branch), and the finish (after_agent)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hookproof._engine import NodeHook
from hookproof._engine.checkpoint import InterruptRaised
from hookproof._support.frozen import FrozenDict
from hookproof.eino._context import RunContext
from hookproof.eino._handlers import AgentMiddleware, overrides
from hookproof.eino._provenance import note_agent_change, note_state_change, shape
from hookproof.eino._records import ChatModelAgentContext, ChatModelAgentState
from hookproof.eino._run import (
    AFTER_CTX_KEY,
    HELD_KEY,
    MODEL_CTX_KEY,
    MSG_SEQ_KEY,
    EinoRun,
    ReplaceMessages,
)
from hookproof.eino._settings import system_message
from hookproof.eino._tools import index_tools
from hookproof.errors import EinoError, ExceedMaxIterationsError, HandlerError, UsageError
from hookproof.messages import AssistantMessage, Message, SystemMessage, text_message

__all__ = ["after_agent_hooks", "after_model_hooks", "before_model_hooks", "start_hooks"]

Hook = Callable[[FrozenDict, Any], Any]


def _hook(owner: str, name: str, func: Hook) -> NodeHook:
    return NodeHook(owner, name, func, None)


def _name(handler: object) -> str:
    return type(handler).__name__


# -- run start ----------------------------------------------------------------------------


def _before_agent(index: int, handler: Any, owner: str) -> Hook:
    def hook(_state: FrozenDict, runtime: Any) -> None:
        run: EinoRun = runtime.context
        try:
            returned = handler.before_agent(run.ctx, run.agent_ctx)
            ctx, agent_ctx = _pair(returned, ChatModelAgentContext, "before_agent")
        except InterruptRaised as raised:
            raise UsageError(
                f"hookproof: handlers[{index}] ({_name(handler)}).before_agent called "
                "interrupt(); a run cannot pause before it has started (before_agent also "
                "runs again on resume). Interrupt from before_model_rewrite_state, a wrapper "
                "or a tool instead."
            ) from raised
        except Exception as error:
            raise HandlerError(
                f"ChatModelAgent getRunFunc error: handler[{index}] ({_name(handler)}) "
                f"BeforeAgent failed: {error}",
                index=index,
                handler=handler,
            ) from error
        run.ctx = run.bind(ctx)
        note_agent_change(run, owner, run.agent_ctx, agent_ctx)
        run.agent_ctx = agent_ctx

    return hook


def _pair(returned: Any, second: type, method: str) -> tuple[RunContext, Any]:
    if (
        not isinstance(returned, tuple)
        or len(returned) != 2
        or not isinstance(returned[0], RunContext)
        or not isinstance(returned[1], second)
    ):
        raise UsageError(
            f"hookproof: {method} returned {type(returned).__name__}; it returns a pair "
            f"(ctx, {second.__name__}) — the ctx it received (or ctx.with_value(...)) and "
            "the value it received (or value.override(...))."
        )
    return returned[0], returned[1]


def _init(state: FrozenDict, runtime: Any) -> dict[str, Any] | None:
    """After before_agent: the run's tools and, on a fresh run, the initial state."""
    run: EinoRun = runtime.context
    index = run.agent.tool_index
    if run.agent_ctx.tools is not index.source:  # before_agent changed them
        index = index_tools(
            run.agent_ctx.tools,
            "tools[{index}] after before_agent",
            "the run's tools (after before_agent)",
        )
    if not index.infos:
        # Eino hands the run's tools to the model and the ToolsNode only when there are
        # some: with every tool removed by before_agent, the agent's own tools stay
        index = run.agent.tool_index
    run.use_tools(index)
    _note_start(run)
    # On resume the chains continue from what the hooks before the pause had added.
    model_delta, after_delta = state.get(MODEL_CTX_KEY), state.get(AFTER_CTX_KEY)
    run.model_ctx = _with_delta(run, model_delta) if model_delta else run.ctx
    run.after_ctx = _with_delta(run, after_delta) if after_delta else run.ctx
    run.exec.state_ready = True
    if run.input_messages is None:  # resuming
        run.message_seq = int(state.get(MSG_SEQ_KEY, 0))
        return _as_checkpointed(state)
    instruction = run.agent_ctx.instruction
    agent = run.agent
    system = agent.system_message if instruction == agent.instruction else None
    return run.initial_state(system or system_message(instruction))


def _as_checkpointed(state: FrozenDict) -> dict[str, Any] | None:
    """Eino's checkpoint (gob) keeps no empty list: tool infos a rewrite emptied come back
    nil after a pause, so the next model call refills them with the run's tools."""
    keys = ("tool_infos", "deferred_tool_infos")
    emptied = [key for key in keys if state.get(key) is not None and not state[key]]
    return dict.fromkeys(emptied) or None


def _note_start(run: EinoRun) -> None:
    """The agent's own tools and instruction, and what before_agent made of them."""
    agent = run.agent
    run.provenance_base = agent.provenance_base
    if run.agent_changers:
        now = shape(run.tool_infos, _system(run.agent_ctx.instruction))
        run.provenance_edits.append((", ".join(run.agent_changers), run.provenance_base, now))


def _system(instruction: str) -> list[Message]:
    return [text_message(SystemMessage, instruction)] if instruction else []


def _with_delta(run: EinoRun, delta: Any) -> RunContext:
    ctx = run.ctx
    for key, value in dict(delta).items():
        ctx = ctx.with_value(key, value)
    return ctx


def _delta(run: EinoRun, ctx: RunContext) -> dict[str, Any]:
    """What a hook chain added to the run's ctx: saved so a resume can restore it."""
    if ctx.values is run.ctx.values:  # the run's ctx itself, bound again
        return {}
    missing = object()
    return {k: v for k, v in ctx.values.items() if run.ctx.value(k, missing) is not v}


def _chained(run: EinoRun, state: FrozenDict, key: str, ctx: RunContext) -> dict[str, Any]:
    if ctx._values is run.ctx._values:  # nothing added: what the state keeps is cleared
        return {key: {}} if state.get(key) else {}
    delta = _delta(run, ctx)
    return {key: delta} if delta != dict(state.get(key) or {}) else {}


def start_hooks(handlers: Sequence[tuple[str, Any]]) -> tuple[NodeHook, ...]:
    hooks = [
        _hook(owner, "before_agent", _before_agent(index, handler, owner))
        for index, (owner, handler) in enumerate(handlers)
        if overrides(handler, "before_agent")
    ]
    return (*hooks, _hook("eino:init", "init", _init))


# -- around each model call ---------------------------------------------------------------


def _prepare(state: FrozenDict, runtime: Any) -> dict[str, Any] | None:
    """Spec section 3, steps 0 and 1: the iteration check, then default tool infos."""
    run: EinoRun = runtime.context
    assert run.exec.handle is not None
    # the last tool step's held event goes out first
    held = _send_held(state, run) if state.get(HELD_KEY) is not None else None
    if run.exec.handle.model_calls >= run.agent.max_iterations:
        raise ExceedMaxIterationsError(
            f"exceeds max iterations: agent {run.agent.name!r} already called the model "
            f"max_iterations={run.agent.max_iterations} times and the model still asks for "
            "tools. Check the script or raise max_iterations."
        )
    run.model_ctx = run.ctx
    update: dict[str, Any] = held or {}
    if state.get(MODEL_CTX_KEY):
        update[MODEL_CTX_KEY] = {}  # a new model call starts from the run's ctx
    if state.get("tool_infos") is None:
        update["tool_infos"] = run.frozen_tool_infos  # equal to run.tool_infos, frozen
    return update or None


def _state_update(before: ChatModelAgentState, after: ChatModelAgentState) -> dict[str, Any]:
    if after is before:
        return {}
    update: dict[str, Any] = {}
    if after.messages != before.messages:
        update["messages"] = ReplaceMessages(after.messages)
    if after.tool_infos != before.tool_infos:
        update["tool_infos"] = after.tool_infos
    if after.deferred_tool_infos != before.deferred_tool_infos:
        update["deferred_tool_infos"] = after.deferred_tool_infos
    return update


def _rewrite(index: int, handler: Any, method: str, owner: str) -> Hook:
    def hook(state: FrozenDict, runtime: Any) -> dict[str, Any] | None:
        run: EinoRun = runtime.context
        before = run.state(state)
        returned = getattr(handler, method)(run.model_ctx, before, run.model_context(state))
        if (
            type(returned) is tuple
            and len(returned) == 2
            and type(returned[0]) is RunContext
            and type(returned[1]) is ChatModelAgentState
        ):
            ctx, after = returned  # _pair's usual case, without its call
        else:
            ctx, after = _pair(returned, ChatModelAgentState, method)
        run.model_ctx = ctx if ctx._exec is run.exec else run.bind(ctx)
        if after is before:
            if ctx._values is run.ctx._values and not state.get(MODEL_CTX_KEY):
                return None  # _chained's usual answer, without its call
            return _chained(run, state, MODEL_CTX_KEY, ctx) or None
        note_state_change(run, owner, before, after)
        return {**_state_update(before, after), **_chained(run, state, MODEL_CTX_KEY, ctx)}

    return hook


def _legacy(middleware: AgentMiddleware, field: str, owner: str) -> Hook:
    def hook(state: FrozenDict, runtime: Any) -> dict[str, Any]:
        run: EinoRun = runtime.context
        before = run.state(state)
        after = getattr(middleware, field)(run.model_ctx, before)
        if after is None:
            return {}
        if not isinstance(after, ChatModelAgentState):
            raise UsageError(
                f"hookproof: AgentMiddleware.{field} returned {type(after).__name__}; it "
                "returns a ChatModelAgentState (state.override(...)) or None to keep it."
            )
        note_state_change(run, owner, before, after)
        return _state_update(before, after)

    return hook


def _branch(state: FrozenDict, runtime: Any) -> dict[str, Any] | None:
    """Spec section 3, step 15: the state's last message decides what comes next."""
    run: EinoRun = runtime.context
    messages = state.get("messages", ())
    if not messages:
        raise EinoError("no messages left in state after model call")
    last = messages[-1]
    if run.tools and isinstance(last, AssistantMessage) and last.tool_calls:
        return None
    return {"jump_to": "end"}


def before_model_hooks(
    handlers: Sequence[tuple[str, Any]], legacy: Sequence[tuple[str, AgentMiddleware]]
) -> tuple[NodeHook, ...]:
    hooks = [_hook("eino:prepare", "prepare", _prepare)]
    hooks += [
        _hook(owner, "before_chat_model", _legacy(item, "before_chat_model", owner))
        for owner, item in legacy
        if item.before_chat_model is not None
    ]
    hooks += [
        _hook(
            owner, "before_model_rewrite_state", _rewrite(i, h, "before_model_rewrite_state", owner)
        )
        for i, (owner, h) in enumerate(handlers)
        if overrides(h, "before_model_rewrite_state")
    ]
    return tuple(hooks)


def after_model_hooks(
    handlers: Sequence[tuple[str, Any]], legacy: Sequence[tuple[str, AgentMiddleware]]
) -> tuple[NodeHook, ...]:
    hooks = [
        _hook(
            owner, "after_model_rewrite_state", _rewrite(i, h, "after_model_rewrite_state", owner)
        )
        for i, (owner, h) in enumerate(handlers)
        if overrides(h, "after_model_rewrite_state")
    ]
    hooks += [
        _hook(owner, "after_chat_model", _legacy(item, "after_chat_model", owner))
        for owner, item in legacy
        if item.after_chat_model is not None
    ]
    return (*hooks, _hook("eino:branch", "branch", _branch))


# -- the finish ---------------------------------------------------------------------------


def _send_held(state: FrozenDict, run: EinoRun) -> dict[str, Any] | None:
    """A held tool event goes out after the tool step's others (Eino: the ToolsNode's
    post-handler): the return-directly call's, or the last call's without an id."""
    held = state.get(HELD_KEY)
    if held is None:
        return None
    run.exec.emit(held, owner="eino:event_sender")
    return {HELD_KEY: None}


def _finish(state: FrozenDict, runtime: Any) -> dict[str, Any] | None:
    """The held-back return-directly event goes out after the others."""
    return _send_held(state, runtime.context)


def _after_agent(index: int, handler: Any) -> Hook:
    def hook(state: FrozenDict, runtime: Any) -> dict[str, Any]:
        run: EinoRun = runtime.context
        try:
            ctx = handler.after_agent(run.after_ctx, run.state(state))
            if not isinstance(ctx, RunContext):
                raise UsageError(
                    f"hookproof: after_agent returned {type(ctx).__name__}; it returns the ctx "
                    "it received (or ctx.with_value(...))."
                )
        except InterruptRaised:
            raise  # the engine pauses here; resume runs this after_agent again
        except Exception as error:
            raise HandlerError(
                f"handler[{index}] ({_name(handler)}) AfterAgent failed: {error}",
                index=index,
                handler=handler,
            ) from error
        run.after_ctx = run.bind(ctx)
        return _chained(run, state, AFTER_CTX_KEY, ctx)

    return hook


def after_agent_hooks(handlers: Sequence[tuple[str, Any]]) -> tuple[NodeHook, ...]:
    hooks = [
        _hook(owner, "after_agent", _after_agent(index, handler))
        for index, (owner, handler) in enumerate(handlers)
        if overrides(handler, "after_agent")
    ]
    return (_hook("eino:finish", "finish", _finish), *hooks)
