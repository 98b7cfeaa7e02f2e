"""Eino scenarios that print what a run shows (not a test): test_provenance_pinned.py uses
their handlers and tools; ``python -m tests.eino.provenance_scenarios > out.txt`` under two
source trees, then a diff of the outputs, compares two versions of hookproof."""

# ruff: noqa: B905
from __future__ import annotations

import copy
import gc
import pickle
import sys
import weakref
from typing import Any

from hookproof.eino import (
    BaseChatModelAgentMiddleware,
    ChatModelAgent,
    InMemoryCheckpointer,
    ManualClock,
    ModelFailoverConfig,
    ModelRetryConfig,
    ModelWrapper,
    interrupt,
)
from hookproof.messages import SystemMessage, text_message
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.snapshot import render
from hookproof.tools import Tool, ToolSchema


def _tool(name: str, text: str = "") -> Tool:
    return Tool(
        schema=ToolSchema(name=name, description=f"The {name} tool."),
        func=lambda: text or name,
    )


def ask_tool() -> Tool:
    def ask() -> str:
        return f"answer {interrupt('ok?')}"

    return Tool(schema=ToolSchema(name="ask", description="Ask."), func=ask)


class PassCtx(ModelWrapper):
    """Passes the call on with another ctx and a copy of the options (same content)."""

    def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
        return self.inner.generate(ctx.with_value("k", 1), list(messages), **dict(options))


class CtxHandler(BaseChatModelAgentMiddleware):
    def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
        return PassCtx(model)


class DropSecond(BaseChatModelAgentMiddleware):
    """Removes tool 'b' from the state before the second model call only."""

    def __init__(self) -> None:
        self.calls = 0

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        self.calls += 1
        if self.calls == 2:
            kept = [info for info in state.tool_infos if info.name != "b"]
            return ctx, state.override(tool_infos=kept)
        return ctx, state


class SameListCopy(BaseChatModelAgentMiddleware):
    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        return ctx, state.override(tool_infos=list(state.tool_infos))


class AfterPrompt(BaseChatModelAgentMiddleware):
    """After the first model call, rewrites the system message (shapes the next call)."""

    def after_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        first = state.messages[0]
        if isinstance(first, SystemMessage) and "After." not in first.text:
            system = text_message(SystemMessage, first.text + "\nAfter.")
            return ctx, state.override(messages=(system, *state.messages[1:]))
        return ctx, state


class SetPrompt(BaseChatModelAgentMiddleware):
    """Replaces the system message with an equal one (another object)."""

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        first = state.messages[0]
        system = text_message(SystemMessage, first.text)
        return ctx, state.override(messages=(system, *state.messages[1:]))


class ToolsBefore(BaseChatModelAgentMiddleware):
    def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
        tools = [item for item in agent_ctx.tools if item.info().name != "b"]
        return ctx, agent_ctx.override(tools=tools)


class SameToolsBefore(BaseChatModelAgentMiddleware):
    def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
        return ctx, agent_ctx.override(tools=list(agent_ctx.tools))


class InstructionBefore(BaseChatModelAgentMiddleware):
    def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
        return ctx, agent_ctx.override(instruction=agent_ctx.instruction + "\nMore.")


class Failing:
    name = "failing"
    hookproof_offline = True

    def __init__(self, times: int) -> None:
        self.times = times

    def invoke(self, request: Any) -> Any:
        if self.times > 0:
            self.times -= 1
            raise RuntimeError("flaky")
        from hookproof.messages import AssistantMessage

        return AssistantMessage(content="ok")


def _script(*turns: Any) -> RecordingModel:
    return RecordingModel(ScriptedModel(list(turns)))


def _agent(model: Any, handlers: Any = (), instruction: str = "You help.", **kw: Any) -> Any:
    tools = kw.pop("tools", [_tool("a"), _tool("b"), _tool("c")])
    return ChatModelAgent(
        model=model, tools=tools, instruction=instruction, handlers=handlers, **kw
    )


def show(label: str, run: Any, model: Any = None) -> None:
    print(f"=== {label}")
    result = run.result
    print("error:", type(run.error).__name__ if run.error else None, run.error)
    print(
        "kinds:", [getattr(e, "kind", None) for e in run.events] if hasattr(run, "events") else None
    )
    for message in result.messages:
        print("msg:", message.role, repr(message.text)[:80])
    for event in result.trace:
        print("trace:", event.describe().strip())
    requests = list(result.final_requests)
    if model is not None:
        print("recorded:", len(model.requests))
        print("same as recorded:", [a is b for a, b in zip(requests, model.requests)])
    for index, request in enumerate(requests):
        print(f"-- request {index}")
        print(render(request))
        prov = request.provenance
        print("prov:", prov.describe() if prov is not None else None)
        print("copy:", copy.deepcopy(request).provenance == prov)
        print("pickle:", pickle.loads(pickle.dumps(request)).provenance == prov)


def scenarios() -> None:
    model = _script(call("a", {}), "done")
    show("plain", _agent(model).run([("user", "hi")]), model)

    model = _script(call("a", {}), "done")
    show("ctx wrapper", _agent(model, [CtxHandler()]).run([("user", "hi")]), model)

    model = _script(call("a", {}), call("b", {}), "done")
    show("drop second", _agent(model, [DropSecond()]).run([("user", "hi")]), model)

    model = _script(call("a", {}), "done")
    show("same list copy", _agent(model, [SameListCopy()]).run([("user", "hi")]), model)

    model = _script(call("a", {}), "done")
    show("after prompt", _agent(model, [AfterPrompt()]).run([("user", "hi")]), model)

    model = _script(call("a", {}), "done")
    show("set prompt", _agent(model, [SetPrompt()]).run([("user", "hi")]), model)

    model = _script(call("a", {}), "done")
    show("tools before", _agent(model, [ToolsBefore()]).run([("user", "hi")]), model)

    model = _script(call("a", {}), "done")
    show("same tools before", _agent(model, [SameToolsBefore()]).run([("user", "hi")]), model)

    model = _script(call("a", {}), "done")
    show("instr before", _agent(model, [InstructionBefore()]).run([("user", "hi")]), model)

    model = _script(call("a", {}), "done")
    agent = _agent(model, instruction="")
    show("no instruction, user system", agent.run([("system", "S1\nS2"), ("user", "hi")]), model)

    model = _script(call("a", {}), "done")
    agent = _agent(model)
    show("system in input too", agent.run([("system", "Mine"), ("user", "hi")]), model)

    model = _script(call("a", {}), "done")
    agent = _agent(model)
    show("twice 1", agent.run([("user", "hi")]), model)

    # the same agent, two runs, and requests compared
    inner = ScriptedModel([call("a", {}), "done", call("c", {}), "done"])
    model = RecordingModel(inner)
    agent = _agent(model, [DropSecond()])
    first = agent.run([("user", "hi")])
    second = agent.run([("user", "again")])
    show("reuse run 1", first)
    show("reuse run 2", second)

    model = _script(call("a", {}), "done")
    agent = _agent(model, model_retry_config=ModelRetryConfig(max_retries=2))
    show("retry config", agent.run([("user", "hi")]), model)

    flaky = Failing(2)
    agent = _agent(flaky, model_retry_config=ModelRetryConfig(max_retries=3), clock=ManualClock())
    show("retry flaky", agent.run([("user", "hi")]))

    backup = _script("from backup")
    agent = _agent(
        Failing(1),
        model_failover_config=ModelFailoverConfig(
            max_retries=1,
            should_failover=lambda ctx, out, err: err is not None,
            get_failover_model=lambda ctx, fc: backup,
        ),
    )
    show("failover", agent.run([("user", "hi")]), backup)

    model = _script(call("a", {}), "done")
    show(
        "streaming",
        _agent(model, [CtxHandler()]).run([("user", "hi")], enable_streaming=True),
        model,
    )

    model = _script(call("ask", {}), "done")
    agent = _agent(
        model,
        [DropSecond()],
        tools=[_tool("a"), _tool("b"), ask_tool()],
        checkpointer=InMemoryCheckpointer(),
    )
    show("paused", agent.run([("user", "hi")], checkpoint_id="t"), model)
    show("resumed", agent.resume("t", "yes"), model)

    model = _script(call("a", {}), "done")
    agent = _agent(model, return_directly=["a"])
    show("return directly", agent.run([("user", "hi")]), model)

    from hookproof.eino.toolsearch import ToolSearchMiddleware
    from tests.eino.helpers import (
        Both,
        EnhancedInvokableOnly,
        EnhancedStreamableOnly,
        InvokableOnly,
        Logger,
        StreamableOnly,
    )

    for kind in (
        InvokableOnly,
        StreamableOnly,
        Both,
        EnhancedInvokableOnly,
        EnhancedStreamableOnly,
    ):
        for streaming in (False, True):
            log: list[str] = []
            model = _script(call("kind_tool", {"q": "x"}), "done")
            agent = _agent(model, [Logger("L", log)], tools=[kind()])
            show(
                f"kind {kind.__name__} streaming={streaming}",
                agent.run([("user", "hi")], enable_streaming=streaming),
                model,
            )
            print("log:", log)

    model = _script(call("a", {}), "done")
    agent = _agent(model, [ToolSearchMiddleware([_tool("hidden1"), _tool("hidden2")])])
    show("tool search", agent.run([("user", "hi")]), model)

    model = _script(call("a", {}), "done")
    agent = _agent(model, [ToolSearchMiddleware([_tool("hidden1")], use_model_tool_search=True)])
    show("tool search model", agent.run([("user", "hi")]), model)

    # freed: a dropped run and model
    model = _script(call("a", {}), "done")
    agent = _agent(model)
    run = agent.run([("user", "hi")])
    ref = weakref.ref(model)
    requests = run.result.final_requests
    del run, agent, model
    gc.collect()
    print("=== model alive while requests kept:", ref() is not None)
    print("prov after model dropped:", [r.provenance.describe() for r in requests])


if __name__ == "__main__":
    scenarios()
    sys.stdout.flush()
