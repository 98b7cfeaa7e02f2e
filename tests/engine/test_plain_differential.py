"""invoke() runs the loop as plain calls (plain.py); a listened run drives the coroutine loop
(loop.py). On generated agents of both dialects the two paths must give the same run:
messages, state, trace, FinalRequests (with provenance), interrupts, resumes and errors.

The old path is the engine's own coroutine loop driven synchronously; the test swaps it in
under the same public ``invoke``/``run`` calls, so whatever a user sees is compared.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookproof._engine import Engine, drive
from hookproof.errors import ToolError
from hookproof.models import ScriptedModel, call
from hookproof.runtime import (
    AgentMiddleware,
    AssistantMessage,
    Command,
    InMemoryCheckpointer,
    ToolMessage,
    create_agent,
    hook_config,
    interrupt,
    tool,
)

NODE_HOOKS = ("before_agent", "before_model", "after_model", "after_agent")
NODE_ACTS = ("none", "note", "jump_end", "jump_model", "jump_tools", "fail", "ask")
MODEL_ACTS = ("pass", "retry", "override", "short", "fail")
TOOL_ACTS = ("pass", "short", "twice", "fail")
TOOL_NAMES = ("lookup", "broken", "ask", "missing")


@contextmanager
def coroutine_path() -> Iterator[None]:
    """Runs that would take the plain path drive the coroutine loop instead."""
    plain = Engine.run_sync

    def driven(self: Engine[Any], initial: Any, context: Any, **options: Any) -> Any:
        return drive(self.run(initial, context, sync=True, **options))

    Engine.run_sync = driven  # type: ignore[method-assign]
    try:
        yield
    finally:
        Engine.run_sync = plain  # type: ignore[method-assign]


# -- generated agents on the runtime (LangChain v1 rules) -----------------------------------


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"found:{query}"


@tool
def broken(query: str) -> str:
    """Always fails."""
    raise ToolError(f"no {query}")


@tool
def ask(query: str) -> str:
    """Asks a human."""
    return f"human said {interrupt(query)}"


def node_hook(hook: str, act: str, index: int) -> Callable[..., Any]:
    jumps = [0]  # a hook jumps twice at most: two hooks jumping to each other would never end

    @hook_config(can_jump_to=["end", "model", "tools"])
    def run(self: Any, state: Any, runtime: Any) -> Any:
        if act == "note":
            return {"messages": [AssistantMessage(content=f"{hook} {index}")]}
        if act.startswith("jump_"):
            jumps[0] += 1
            return {"jump_to": act.removeprefix("jump_")} if jumps[0] <= 2 else None
        if act == "fail":
            raise ValueError(f"{hook} {index} failed")
        if act == "ask":
            return {"messages": [AssistantMessage(content=str(interrupt(f"{hook}?")))]}
        return None

    return run


def model_layer(act: str) -> Callable[..., Any]:
    def wrap_model_call(self: Any, request: Any, handler: Any) -> Any:
        if act == "retry":
            handler(request)
            return handler(request)
        if act == "override":
            return handler(request.override(system_message=None))
        if act == "short":
            return AssistantMessage(content="short")
        if act == "fail":
            raise RuntimeError("model layer failed")
        return handler(request)

    return wrap_model_call


def tool_layer(act: str) -> Callable[..., Any]:
    def wrap_tool_call(self: Any, request: Any, handler: Any) -> Any:
        if act == "short":
            return ToolMessage(content="skipped", tool_call_id=request.tool_call.id or "")
        if act == "twice":
            handler(request)
            return handler(request)
        if act == "fail":
            raise RuntimeError("tool layer failed")
        return handler(request)

    return wrap_tool_call


@st.composite
def runtime_specs(draw: st.DrawFn) -> dict[str, Any]:
    nodes = draw(st.lists(st.tuples(st.sampled_from(NODE_HOOKS), st.sampled_from(NODE_ACTS))))
    turn = st.one_of(
        st.just("done"),
        st.lists(st.sampled_from(TOOL_NAMES), min_size=1, max_size=3),
    )
    return {
        "nodes": nodes[:4],
        "model": draw(st.lists(st.sampled_from(MODEL_ACTS), max_size=2)),
        "tool": draw(st.lists(st.sampled_from(TOOL_ACTS), max_size=2)),
        "script": draw(st.lists(turn, min_size=1, max_size=4)),
        "saved": draw(st.booleans()),
    }


def build_runtime(spec: dict[str, Any]) -> Any:
    middleware = []
    for index, (hook, act) in enumerate(spec["nodes"]):
        methods = {hook: node_hook(hook, act, index)}
        middleware.append(type(f"Node{index}", (AgentMiddleware,), methods)())
    for index, act in enumerate(spec["model"]):
        methods = {"wrap_model_call": model_layer(act)}
        middleware.append(type(f"ModelLayer{index}", (AgentMiddleware,), methods)())
    for index, act in enumerate(spec["tool"]):
        methods = {"wrap_tool_call": tool_layer(act)}
        middleware.append(type(f"ToolLayer{index}", (AgentMiddleware,), methods)())
    turns = [
        turn if isinstance(turn, str) else [call(name, {"query": name}) for name in turn]
        for turn in spec["script"]
    ]
    return create_agent(
        ScriptedModel([*turns, "done", "done", "done"]),
        [lookup, broken, ask],
        system_prompt="Be brief.",
        middleware=middleware,
        checkpointer=InMemoryCheckpointer() if spec["saved"] else None,
        max_iterations=4,
    )


def outcome(attempt: Callable[[], Any]) -> tuple[Any, ...]:
    """Everything a run shows, or the error it raised (type and message)."""
    try:
        result = attempt()
    except Exception as error:  # noqa: BLE001 - the error is part of what is compared
        return ("error", type(error).__name__, str(error))
    return (
        result.messages,
        dict(result.state),
        result.trace.format(),
        result.trace.events,
        result.final_requests,
        result.interrupts,
    )


def runtime_session(spec: dict[str, Any]) -> list[tuple[Any, ...]]:
    """A run, and (on a paused thread) up to two resumes."""
    agent = build_runtime(spec)
    thread = "t" if spec["saved"] else None
    inputs: list[Any] = [{"messages": [("user", "hi")]}]
    inputs += [Command(resume=answer) for answer in ("yes", "no")]
    shown: list[tuple[Any, ...]] = []
    for given_input in inputs:
        shown.append(outcome(partial(agent.invoke, given_input, thread_id=thread)))
        if shown[-1][0] == "error" or not shown[-1][5]:
            break
    return shown


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runtime_specs())
def test_runtime_invoke_is_the_coroutine_loops_run(spec: dict[str, Any]) -> None:
    plain = runtime_session(spec)
    with coroutine_path():
        driven = runtime_session(spec)
    assert plain == driven


def test_the_differential_tells_a_different_run_apart() -> None:
    """The comparison is not vacuous: a coroutine path that drops one trace event differs."""
    spec = {"nodes": [], "model": ["pass"], "tool": ["pass"], "script": [["lookup"]]}
    spec["saved"] = False
    plain = runtime_session(spec)
    original = Engine.run

    async def lossy(self: Engine[Any], *args: Any, **options: Any) -> Any:
        result = await original(self, *args, **options)
        result.trace  # noqa: B018 - freeze it, then forget one event
        result._trace = type(result.trace)(result.trace.events[:-1])
        return result

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Engine, "run", lossy)
        with coroutine_path():
            driven = runtime_session(spec)
    assert plain != driven


# -- generated agents on the Eino dialect ---------------------------------------------------


@st.composite
def eino_specs(draw: st.DrawFn) -> dict[str, Any]:
    turn = st.one_of(st.just("done"), st.lists(st.sampled_from(TOOL_NAMES), min_size=1))
    return {
        "handlers": draw(st.lists(st.sampled_from(("model", "state", "tool")), max_size=3)),
        "script": draw(st.lists(turn, min_size=1, max_size=4)),
    }


def build_eino(spec: dict[str, Any]) -> Any:
    from hookproof.eino import BaseChatModelAgentMiddleware, ChatModelAgent

    class WrapModel(BaseChatModelAgentMiddleware):
        def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
            return model

    class RewriteState(BaseChatModelAgentMiddleware):
        def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            return ctx, state

    class WrapTool(BaseChatModelAgentMiddleware):
        def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
            return endpoint

    kinds = {"model": WrapModel, "state": RewriteState, "tool": WrapTool}
    turns = [
        turn if isinstance(turn, str) else [call(name, {"query": name}) for name in turn[:3]]
        for turn in spec["script"]
    ]
    return ChatModelAgent(
        model=ScriptedModel([*turns, "done", "done"]),
        tools=[lookup, broken],
        handlers=[kinds[kind]() for kind in spec["handlers"]],
    )


def eino_outcome(spec: dict[str, Any]) -> tuple[Any, ...]:
    run = build_eino(spec).run([("user", "hi")])
    error = None if run.error is None else (type(run.error).__name__, str(run.error))
    events = [repr(event) for event in run.events]
    return (error, events, run.trace.format(), run.messages, run.final_requests)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(eino_specs())
def test_eino_run_is_the_coroutine_loops_run(spec: dict[str, Any]) -> None:
    plain = eino_outcome(spec)
    with coroutine_path():
        driven = eino_outcome(spec)
    assert plain == driven
