"""ctx propagation, the legacy struct, streaming models, callbacks, agentic input and
isolation of concurrent runs in the Eino dialect."""

from __future__ import annotations

import threading
from typing import Annotated, Any

import pytest

from hookproof.eino import (
    AgentEvent,
    AgentMiddleware,
    BaseChatModelAgentMiddleware,
    CallbackHandler,
    ChatModelAgent,
    ChatModelAgentState,
    ModelWrapper,
    RunContext,
    get_run_local_value,
    send_event,
    set_run_local_value,
)
from hookproof.errors import ImmutableError, UsageError
from hookproof.guard import block_real_models
from hookproof.messages import AssistantMessage, construct, text_message
from hookproof.models import ScriptedModel, call
from hookproof.templates import user_agentic_message
from hookproof.tools import InjectedState, InjectedToolCallId, ToolRuntime, tool
from tests.eino.helpers import agent_with, lookup, scripted, search


class CtxProbe(BaseChatModelAgentMiddleware):
    """Adds ctx values in before_agent and before_model; records what later steps see."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []

    def before_agent(self, ctx: RunContext, agent_ctx: Any) -> Any:
        return ctx.with_value("run", "r"), agent_ctx

    def before_model_rewrite_state(self, ctx: RunContext, state: Any, model_ctx: Any) -> Any:
        self.seen.append(("before_model", ctx.value("iteration")))
        return ctx.with_value("iteration", len(state.messages)), state

    def wrap_model(self, ctx: RunContext, model: Any, model_ctx: Any) -> Any:
        self.seen.append(("wrap_model", (ctx.value("run"), ctx.value("iteration"))))
        return model

    def after_model_rewrite_state(self, ctx: RunContext, state: Any, model_ctx: Any) -> Any:
        self.seen.append(("after_model", ctx.value("iteration")))
        return ctx, state

    def wrap_invokable_tool_call(self, ctx: RunContext, endpoint: Any, tool_ctx: Any) -> Any:
        self.seen.append(("tool", (ctx.value("run"), ctx.value("iteration"))))
        return endpoint


def test_ctx_flows_from_before_agent_everywhere_and_model_ctx_stays_in_its_iteration() -> None:
    probe = CtxProbe()
    run = agent_with(scripted(call("search", {"q": "x"}), "done"), handlers=[probe]).run(
        [("user", "hi")]
    )
    assert run.error is None
    assert probe.seen == [
        ("before_model", None),
        ("wrap_model", ("r", 1)),
        ("after_model", 1),
        ("tool", ("r", None)),  # tools get the run's ctx, not the model call's
        ("before_model", None),  # a new iteration starts from the run's ctx again
        ("wrap_model", ("r", 3)),
        ("after_model", 3),
    ]


def test_the_ctx_given_to_run_reaches_the_hooks_and_stays_unchanged() -> None:
    probe = CtxProbe()
    given = RunContext({"tenant": "acme"})
    agent_with(scripted("done"), handlers=[probe]).run([("user", "hi")], given)
    assert given.values == {"tenant": "acme"}
    with pytest.raises(ImmutableError, match="with_value"):
        given.extra = 1  # type: ignore[attr-defined]


def test_legacy_additions_are_applied_before_before_agent_sees_the_config() -> None:
    seen: list[Any] = []

    class Look(BaseChatModelAgentMiddleware):
        def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
            seen.append((agent_ctx.instruction, [t.info().name for t in agent_ctx.tools]))
            return ctx, agent_ctx

    model = scripted("ok")
    ChatModelAgent(
        model=model,
        instruction="Base.",
        tools=[search],
        middlewares=[
            AgentMiddleware(additional_instruction="Extra one."),
            AgentMiddleware(additional_instruction="Extra two.", additional_tools=[lookup]),
        ],
        handlers=[Look()],
    ).run([("user", "hi")])
    assert seen == [("Base.\n\nExtra one.\n\nExtra two.", ["search", "lookup"])]
    assert model.last.system_text == "Base.\n\nExtra one.\n\nExtra two."
    assert model.last.tool_names == ["lookup", "search"]


def test_legacy_state_hooks_can_replace_the_state() -> None:
    def hide_lookup(ctx: Any, state: ChatModelAgentState) -> ChatModelAgentState:
        return state.override(
            tool_infos=[info for info in state.tool_infos or () if info.name != "lookup"]
        )

    model = scripted("ok")
    agent_with(
        model, tools=[search, lookup], middlewares=[AgentMiddleware(before_chat_model=hide_lookup)]
    ).run([("user", "hi")])
    assert model.last.tool_names == ["search"]


def test_before_agent_can_replace_instruction_and_tools() -> None:
    class Configure(BaseChatModelAgentMiddleware):
        def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
            return ctx, agent_ctx.override(instruction="Replaced.", tools=[lookup])

    model = scripted(call("lookup", {"q": "c"}), "ok")
    run = agent_with(model, instruction="Original.", handlers=[Configure()]).run([("user", "hi")])
    assert run.error is None
    assert model.requests[0].system_text == "Replaced."
    assert model.requests[0].tool_names == ["lookup"]
    assert run.messages[3].text == "customer c"


class Splitter(BaseChatModelAgentMiddleware):
    def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
        class Split(ModelWrapper):
            def stream(self, ctx: Any, messages: Any, **options: Any) -> Any:
                for chunk in self.inner.stream(ctx, messages, **options):
                    text = chunk.text
                    for part in (text[: len(text) // 2], text[len(text) // 2 :]):
                        yield text_message(AssistantMessage, part)

        return Split(model)


def test_streaming_runs_stream_the_model_and_concatenate_chunks() -> None:
    run = agent_with(scripted("hello world"), handlers=[Splitter()]).run(
        [("user", "hi")], enable_streaming=True
    )
    event = run.events[0]
    assert event.is_streaming and [c.text for c in event.chunks] == ["hello", " world"]
    assert event.message.text == "hello world"  # type: ignore[union-attr]
    assert run.messages[-1].text == "hello world"


def test_streamed_tool_calls_are_concatenated_from_chunks() -> None:
    class CallsInChunks(BaseChatModelAgentMiddleware):
        def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
            class Split(ModelWrapper):
                def stream(self, ctx: Any, messages: Any, **options: Any) -> Any:
                    (whole,) = list(self.inner.stream(ctx, messages, **options))
                    yield construct(AssistantMessage, content=(), tool_calls=whole.tool_calls[:1])
                    yield construct(AssistantMessage, content=(), tool_calls=whole.tool_calls[1:])

            return Split(model)

    model = scripted([call("search", {"q": "a"}), call("lookup", {"q": "b"})], "done")
    run = agent_with(model, tools=[search, lookup], handlers=[CallsInChunks()]).run(
        [("user", "x")], enable_streaming=True
    )
    assert [event.data["tool"] for event in run.trace.tool_calls] == ["search", "lookup"]


def test_callbacks_wrap_models_and_tools_unless_they_run_their_own() -> None:
    log: list[str] = []

    class Log(CallbackHandler):
        def on_start(self, ctx: Any, info: Any, input: Any) -> Any:
            log.append(f"start {info.component} {info.name}")
            return ctx.with_value("cb", True)

        def on_end(self, ctx: Any, info: Any, output: Any) -> Any:
            log.append(f"end {info.component} {ctx.value('cb')}")
            return ctx

        def on_error(self, ctx: Any, info: Any, error: BaseException) -> Any:
            log.append(f"error {info.component} {error}")
            return ctx

    agent_with(scripted(call("search", {"q": "x"}), "ok"), callbacks=[Log()]).run([("user", "x")])
    assert log == [
        "start ChatModel scripted",
        "end ChatModel True",
        "start Tool search",
        "end Tool True",
        "start ChatModel scripted",
        "end ChatModel True",
    ]

    class OwnCallbacks(ScriptedModel):
        def is_callbacks_enabled(self) -> bool:
            return True

    log.clear()
    agent_with(OwnCallbacks(["ok"]), callbacks=[Log()]).run([("user", "x")])
    assert log == []


def test_agentic_messages_are_accepted_as_input() -> None:
    model = scripted("ok")
    agent_with(model).run([user_agentic_message("from a template")])
    assert model.last.messages[-1].text == "from a template"


@tool
def note(q: str, runtime: ToolRuntime) -> str:
    """Sends a progress event and remembers the query."""
    send_event(runtime.context, AgentEvent(custom={"progress": q}))
    set_run_local_value(runtime.context, "q", q)
    return "noted"


def test_tools_get_the_run_ctx_and_can_send_events() -> None:
    run = agent_with(scripted(call("note", {"q": "half"}), "done"), tools=[note]).run(
        [("user", "x")]
    )
    assert run.kinds() == ["model_output", "custom", "tool_result", "model_output"]
    assert run.events[1].custom == {"progress": "half"}


def test_concurrent_runs_of_one_agent_keep_their_values_apart() -> None:
    seen: dict[str, Any] = {}
    barrier = threading.Barrier(2)

    class Remember(BaseChatModelAgentMiddleware):
        def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            set_run_local_value(ctx, "who", state.messages[-1].text)
            return ctx, state

        def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
            barrier.wait(timeout=5)  # both runs are inside their model call at once
            return model

        def after_agent(self, ctx: Any, state: Any) -> Any:
            who = state.messages[1].text
            seen[who] = get_run_local_value(ctx, "who")[0]
            return ctx

    agent = ChatModelAgent(
        model=ScriptedModel(lambda request: request.messages[-1].text), handlers=[Remember()]
    )
    threads = [
        threading.Thread(target=agent.run, args=([("user", name)],)) for name in ("ann", "bob")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert seen == {"ann": "ann", "bob": "bob"}


class GoStyleModel:
    """A fake model written the way Eino's tests write one: generate(ctx, messages, opts)."""

    hookproof_offline = True
    name = "go-style"

    def __init__(self) -> None:
        self.seen: list[tuple[Any, list[str], list[str]]] = []

    def generate(self, ctx: RunContext, messages: Any, **options: Any) -> AssistantMessage:
        names = [info.name for info in options["tools"]]
        self.seen.append((ctx.value("tenant"), [m.text for m in messages], names))
        if len(self.seen) == 1:
            return construct(AssistantMessage, content=(), tool_calls=(call_of("search", "c1"),))
        return text_message(AssistantMessage, "done")


def call_of(name: str, call_id: str) -> Any:
    from hookproof.messages import ToolCall

    return ToolCall(name=name, args={"q": "x"}, id=call_id)


def test_a_model_written_the_eino_way_is_called_with_ctx_messages_and_tools() -> None:
    model = GoStyleModel()
    run = agent_with(model, instruction="Sys.").run([("user", "hi")], {"tenant": "acme"})
    assert run.error is None and run.text == "done"
    assert model.seen[0] == ("acme", ["Sys.", "hi"], ["search"])
    assert [request.model for request in run.final_requests] == ["go-style", "go-style"]
    assert run.final_requests[0].system_text == "Sys."


def test_an_eino_style_model_is_still_subject_to_the_real_model_guard() -> None:
    class Unmarked(GoStyleModel):
        hookproof_offline = False  # type: ignore[assignment]

    # The guard in a block of the test's own: the plugin fails a test whose run caught (here:
    # returned as run.error) a refusal.
    with block_real_models() as refusals:
        run = agent_with(Unmarked()).run([("user", "hi")])
    assert "blocks real model calls" in str(run.error)
    assert refusals == [str(run.error)]


def test_a_stream_only_eino_style_model_is_concatenated() -> None:
    class StreamOnly:
        hookproof_offline = True

        def stream(self, ctx: Any, messages: Any, **options: Any) -> Any:
            yield text_message(AssistantMessage, "par")
            yield text_message(AssistantMessage, "tial")

    run = ChatModelAgent(model=StreamOnly()).run([("user", "hi")])
    assert run.text == "partial"


def test_a_model_without_any_call_method_is_refused() -> None:
    with pytest.raises(UsageError, match="generate\\(ctx, messages"):
        ChatModelAgent(model=object())


def test_arun_and_aresume_match_the_sync_runs() -> None:
    import asyncio

    from hookproof.eino import InMemoryCheckpointer, interrupt
    from tests.eino.helpers import Logger

    @tool
    def approve(q: str, ctx: RunContext) -> str:
        """Asks a human."""
        set_run_local_value(ctx, "asked", q)
        return f"approved {interrupt(q)}"

    def build() -> ChatModelAgent:
        return agent_with(
            scripted(call("search", {"q": "x"}), call("approve", {"q": "y"}), "done"),
            tools=[search, approve],
            handlers=[Logger("a", []), Logger("b", [])],
            checkpointer=InMemoryCheckpointer(),
        )

    sync_agent, async_agent = build(), build()
    first = sync_agent.run([("user", "hi")], checkpoint_id="t")
    second = sync_agent.resume("t", "ok")

    async def both() -> tuple[Any, Any]:
        paused = await async_agent.arun([("user", "hi")], checkpoint_id="t")
        return paused, await async_agent.aresume("t", "ok")

    afirst, asecond = asyncio.run(both())
    assert afirst.kinds() == first.kinds() and asecond.kinds() == second.kinds()
    assert afirst.trace.labels() == first.trace.labels()
    assert asecond.trace.labels() == second.trace.labels()
    assert asecond.text == second.text == "done"


@tool
def who_calls(
    q: str, state: Annotated[dict, InjectedState], call_id: Annotated[str, InjectedToolCallId]
) -> str:
    """Answers with what the tool was given."""
    return f"{q} {len(state['messages'])} {call_id}"


def test_injected_state_and_call_id_reach_an_eino_tool() -> None:
    run = agent_with(scripted(call("who_calls", {"q": "x"}), "done"), tools=[who_calls]).run(
        [("user", "hi")]
    )
    assert run.events[1].message.text == "x 2 call_0"
