"""Old-versus-new differential for the engine's hot path: generated agents of both dialects
(node hooks that note, jump, fail or ask; wrap layers that pass, retry, override, answer
or fail; tools that answer, fail, interrupt or are missing; saved threads resumed twice)
run through the public ``invoke``/``run``, and everything a run shows (messages with the
fields each set, state, trace, FinalRequests with provenance, sender and rendered snapshot,
interrupts, errors) is digested per agent. ``engine_golden.json`` holds the digests the
engine gave before its hot path was rewritten: a faster engine must give the same bytes.

Regenerate (only when a change of what a run shows is intended and reviewed):
``python -m tests.engine.test_engine_golden``.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

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
from hookproof.snapshot import render

GOLDEN = Path(__file__).with_name("engine_golden.json")
RUNTIME_AGENTS = 1000
EINO_AGENTS = 300

NODE_HOOKS = ("before_agent", "before_model", "after_model", "after_agent")
NODE_ACTS = ("none", "note", "state", "jump_end", "jump_model", "jump_tools", "fail", "ask")
MODEL_ACTS = ("pass", "retry", "override", "short", "fail", "extended")
TOOL_ACTS = ("pass", "short", "twice", "fail", "command")
TOOL_NAMES = ("lookup", "broken", "ask", "missing")


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
        if act == "state":
            return Command(update={"messages": [AssistantMessage(content=f"cmd {index}")]})
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
            return handler(request.override(system_message=None, tools=request.tools[:1]))
        if act == "short":
            return AssistantMessage(content="short")
        if act == "fail":
            raise RuntimeError("model layer failed")
        if act == "extended":
            from hookproof.requests import ExtendedModelResponse

            response = handler(request)
            note = Command(update={"messages": [AssistantMessage(content="said")]})
            return ExtendedModelResponse(model_response=response, command=note)
        return handler(request)

    return wrap_model_call


def tool_layer(act: str) -> Callable[..., Any]:
    def wrap_tool_call(self: Any, request: Any, handler: Any) -> Any:
        call_id = request.tool_call.id or ""
        if act == "short":
            return ToolMessage(content="skipped", tool_call_id=call_id)
        if act == "twice":
            handler(request)
            return handler(request)
        if act == "fail":
            raise RuntimeError("tool layer failed")
        if act == "command":
            answer = ToolMessage(content="by command", tool_call_id=call_id)
            return Command(update={"messages": [answer]})
        return handler(request)

    return wrap_tool_call


def runtime_spec(rng: random.Random) -> dict[str, Any]:
    def turn() -> Any:
        if rng.random() < 0.3:
            return "done"
        return [rng.choice(TOOL_NAMES) for _ in range(rng.randint(1, 3))]

    return {
        "nodes": [
            (rng.choice(NODE_HOOKS), rng.choice(NODE_ACTS)) for _ in range(rng.randint(0, 4))
        ],
        "model": [rng.choice(MODEL_ACTS) for _ in range(rng.randint(0, 2))],
        "tool": [rng.choice(TOOL_ACTS) for _ in range(rng.randint(0, 2))],
        "script": [turn() for _ in range(rng.randint(1, 4))],
        "saved": rng.random() < 0.5,
        "ids": rng.random() < 0.7,
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
        turn
        if isinstance(turn, str)
        else [call(name, {"query": name}, **({} if spec["ids"] else {"id": None})) for name in turn]
        for turn in spec["script"]
    ]
    return create_agent(
        ScriptedModel([*turns, "done", "done", "done"]),
        [lookup, broken, ask],
        system_prompt="Be brief.\n\nUse tools.",
        middleware=middleware,
        checkpointer=InMemoryCheckpointer() if spec["saved"] else None,
        max_iterations=4,
    )


def shown_message(message: Any) -> str:
    return f"{message!r} set={sorted(message.model_fields_set)}"


def shown_request(final: Any) -> str:
    return "\n".join(
        [
            repr(final),
            repr(final.provenance),
            repr(final.sender),
            render(final),
            *map(shown_message, final.messages),
        ]
    )


def shown_run(attempt: Callable[[], Any]) -> tuple[str, bool]:
    """Everything a run shows (or the error it raised), and whether it paused."""
    try:
        result = attempt()
    except Exception as error:  # noqa: BLE001 - the error is part of what is compared
        return f"error {type(error).__name__}: {error}", False
    parts = [
        *map(shown_message, result.messages),
        repr(dict(result.state)),
        result.trace.format(),
        repr(result.trace.events),
        *map(shown_request, result.final_requests),
        repr(result.interrupts),
        repr(result.thread_id),
    ]
    return "\n".join(parts), bool(result.interrupts)


def runtime_session(spec: dict[str, Any]) -> str:
    """A run, and (on a paused thread) up to two resumes."""
    agent = build_runtime(spec)
    thread = "t" if spec["saved"] else None
    first = {"messages": [("user", "hi")]}
    shown, paused = shown_run(lambda: agent.invoke(first, thread_id=thread))
    for answer in ("yes", "no"):
        if not paused:
            break
        more, paused = shown_run(lambda a=answer: agent.invoke(Command(resume=a), thread_id=thread))
        shown += "\n--resume--\n" + more
    return shown


def eino_spec(rng: random.Random) -> dict[str, Any]:
    def turn() -> Any:
        if rng.random() < 0.3:
            return "done"
        return [rng.choice(TOOL_NAMES) for _ in range(rng.randint(1, 3))]

    return {
        "handlers": [rng.choice(("model", "state", "tool")) for _ in range(rng.randint(0, 3))],
        "script": [turn() for _ in range(rng.randint(1, 4))],
    }


def eino_session(spec: dict[str, Any]) -> str:
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
        turn if isinstance(turn, str) else [call(name, {"query": name}) for name in turn]
        for turn in spec["script"]
    ]
    agent = ChatModelAgent(
        model=ScriptedModel([*turns, "done", "done"]),
        tools=[lookup, broken],
        handlers=[kinds[kind]() for kind in spec["handlers"]],
    )
    run = agent.run([("user", "hi")])
    error = None if run.error is None else (type(run.error).__name__, str(run.error))
    parts = [
        repr(error),
        *(repr(event) for event in run.events),
        run.trace.format(),
        *map(shown_message, run.messages),
        *map(shown_request, run.final_requests),
    ]
    return "\n".join(parts)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def digests() -> dict[str, list[str]]:
    runtime = random.Random(31)
    eino = random.Random(13)
    return {
        "runtime": [digest(runtime_session(runtime_spec(runtime))) for _ in range(RUNTIME_AGENTS)],
        "eino": [digest(eino_session(eino_spec(eino))) for _ in range(EINO_AGENTS)],
    }


@pytest.fixture(scope="module")
def golden() -> dict[str, list[str]]:
    return json.loads(GOLDEN.read_text())  # type: ignore[no-any-return]


def test_generated_runtime_agents_run_as_before(golden: dict[str, list[str]]) -> None:
    rng = random.Random(31)
    for number, expected in enumerate(golden["runtime"]):
        spec = runtime_spec(rng)
        assert digest(runtime_session(spec)) == expected, (number, spec)


def test_generated_eino_agents_run_as_before(golden: dict[str, list[str]]) -> None:
    rng = random.Random(13)
    for number, expected in enumerate(golden["eino"]):
        spec = eino_spec(rng)
        assert digest(eino_session(spec)) == expected, (number, spec)


def test_the_golden_covers_pauses_errors_and_resumes() -> None:
    """The generated agents are not all alike: some pause and resume, some fail."""
    rng = random.Random(31)
    shown = [runtime_session(runtime_spec(rng)) for _ in range(60)]
    assert any("--resume--" in text for text in shown)
    assert any(text.startswith("error ") for text in shown)
    assert any("tool:enter" in text and "error" not in text[:6] for text in shown)


def test_the_digest_tells_a_run_without_one_trace_event_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A buggy twin of the trace (its last event dropped) changes the digest."""
    from hookproof.trace import TraceRecorder

    spec = {"nodes": [], "model": ["pass"], "tool": ["pass"], "script": [["lookup"]]}
    spec |= {"saved": False, "ids": True}
    fixed = digest(runtime_session(spec))
    freeze = TraceRecorder.freeze

    def lossy(self: TraceRecorder) -> Any:
        trace = freeze(self)
        return type(trace)(trace.events[:-1])

    monkeypatch.setattr(TraceRecorder, "freeze", lossy)
    assert digest(runtime_session(spec)) != fixed


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(digests(), indent=0) + "\n")
