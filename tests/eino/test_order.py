"""Spec sections 3 and 4 as trace assertions: the model-call and tool-call layering."""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.eino import (
    AgentMiddleware,
    BaseChatModelAgentMiddleware,
    CallbackHandler,
    ChatModelAgent,
    ChatModelAgentState,
    ManualClock,
    ModelFailoverConfig,
    ModelRetryConfig,
    ModelWrapper,
    ToolMiddleware,
    new_event_sender_model_wrapper,
    new_event_sender_tool_wrapper,
)
from hookproof.messages import AssistantMessage, UserMessage, text_message
from hookproof.models import call
from tests.eino.helpers import (
    Flaky,
    Logger,
    StreamableOnly,
    Upper,
    agent_with,
    hooks_entered,
    layer_owners,
    lookup,
    scripted,
    search,
    tool_layer,
    tool_layer_owners,
)


def _legacy(log: list[str]) -> AgentMiddleware:
    def before(ctx: Any, state: ChatModelAgentState) -> None:
        log.append("legacy.before_chat_model")

    def after(ctx: Any, state: ChatModelAgentState) -> None:
        log.append("legacy.after_chat_model")

    return AgentMiddleware(before_chat_model=before, after_chat_model=after)


def test_model_call_layers_run_in_spec_order_outermost_first() -> None:
    log: list[str] = []
    agent = agent_with(
        scripted("hi"),
        handlers=[Logger("A", log), Logger("B", log)],
        middlewares=[_legacy(log)],
        model_retry_config=ModelRetryConfig(max_retries=1),
        model_failover_config=ModelFailoverConfig(
            max_retries=1,
            should_failover=lambda ctx, out, err: err is not None,
            get_failover_model=lambda ctx, fc: scripted("backup"),
        ),
        callbacks=[CallbackHandler()],
    )
    run = agent.run([("user", "hello")])
    assert run.error is None
    assert layer_owners(run.trace, "model") == [
        "eino:chat_model",  # state in (messages, tool infos), result appended
        "eino:failover",
        "eino:retry",
        "eino:event_sender",
        "Logger#1",  # handlers[0] outermost
        "Logger#2",
        "eino:message_id",
        "eino:callbacks",
    ]
    assert hooks_entered(run.trace)[:6] == [
        "Logger#1.before_agent",
        "Logger#2.before_agent",
        "eino:init.init",
        "eino:prepare.prepare",  # max-iteration check and default tool infos come first
        "AgentMiddleware[0].before_chat_model",
        "Logger#1.before_model_rewrite_state",
    ]
    assert log == [
        "A.before_agent",
        "B.before_agent",
        "legacy.before_chat_model",
        "A.before_model",
        "B.before_model",
        "A.wrap_model",  # wrap_model is called lazily, outermost first
        "A.generate>",
        "B.wrap_model",
        "B.generate>",
        "B.generate<",
        "A.generate<",
        "A.after_model",  # after hooks in registration order (LangChain: reversed)
        "B.after_model",
        "legacy.after_chat_model",
        "A.after_agent",
        "B.after_agent",
    ]


def test_tool_call_layers_run_in_spec_order_outermost_first() -> None:
    log: list[str] = []

    def middleware(name: str) -> ToolMiddleware:
        layer = tool_layer(lambda _: log.append(f"{name}>"), lambda: log.append(f"{name}<"))
        return ToolMiddleware(invokable=layer)

    agent = agent_with(
        scripted(call("search", {"q": "x"}), "done"),
        handlers=[Logger("A", log), Logger("B", log)],
        middlewares=[AgentMiddleware(wrap_tool_call=middleware("legacy"))],
        tool_call_middlewares=[middleware("config")],
        callbacks=[CallbackHandler()],
    )
    run = agent.run([("user", "hello")])
    assert run.error is None
    assert tool_layer_owners(run.trace) == [
        "eino:tools_node",
        "eino:event_sender",
        "ToolCallMiddleware[0]",
        "AgentMiddleware[0]",
        "Logger#1",
        "Logger#2",
        "eino:callbacks",
    ]
    tool_steps = [step for step in log if step.endswith((">", "<")) and "generate" not in step]
    assert tool_steps == [
        "config>", "legacy>", "A.invokable>", "B.invokable>",
        "B.invokable<", "A.invokable<", "legacy<", "config<",
    ]  # fmt: skip


def _streamable_agent() -> ChatModelAgent:
    return ChatModelAgent(
        model=scripted(call("kind_tool", {"q": "x"}), "done"),
        tools=[StreamableOnly()],
        handlers=[Logger("A", [])],
        middlewares=[AgentMiddleware(wrap_tool_call=ToolMiddleware(streamable=lambda n: n))],
    )


def test_cancel_monitor_sits_between_agent_middleware_and_handlers_for_streams() -> None:
    run = _streamable_agent().run([("user", "hi")], enable_streaming=True)
    assert tool_layer_owners(run.trace) == [
        "eino:tools_node",
        "eino:event_sender",
        "AgentMiddleware[0]",
        "eino:cancel_monitor",
        "Logger",
    ]
    invoke_run = _streamable_agent().run([("user", "hi")])
    assert "eino:cancel_monitor" in tool_layer_owners(invoke_run.trace)  # streamable endpoint


def test_invokable_endpoints_have_no_cancel_monitor() -> None:
    run = agent_with(scripted(call("search", {"q": "x"}), "done")).run([("user", "hi")])
    assert tool_layer_owners(run.trace) == ["eino:tools_node", "eino:event_sender"]


def test_a_streamable_tool_from_before_agent_still_gets_the_cancel_monitor() -> None:
    class Swap(BaseChatModelAgentMiddleware):  # the agent's own tools are invokable only
        def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
            return ctx, agent_ctx.override(tools=(StreamableOnly(),))

    model = scripted(call("kind_tool", {"q": "x"}), "done")
    run = agent_with(model, handlers=[Swap()]).run([("user", "hi")])
    assert "eino:cancel_monitor" in tool_layer_owners(run.trace)


def test_registered_event_senders_replace_the_defaults_at_their_position() -> None:
    log: list[str] = []
    agent = agent_with(
        scripted(call("search", {"q": "x"}), "done"),
        handlers=[
            Logger("A", log),
            new_event_sender_model_wrapper(),
            new_event_sender_tool_wrapper(),
            Logger("B", log),
        ],
    )
    run = agent.run([("user", "hi")])
    assert layer_owners(run.trace, "model") == [
        "eino:chat_model",
        "Logger#1",
        "EventSenderModelWrapper",
        "Logger#2",
        "eino:message_id",
    ]
    assert tool_layer_owners(run.trace) == [
        "eino:tools_node",
        "Logger#1",
        "EventSenderToolWrapper",
        "Logger#2",
    ]
    assert run.kinds() == ["model_output", "tool_result", "model_output"]


class Rewrites(Upper):
    """wrap_model changes the output; after_model_rewrite_state changes it again."""

    def after_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        last = text_message(AssistantMessage, state.messages[-1].text + " (rewritten)")
        return ctx, state.override(messages=(*state.messages[:-1], last))


def test_event_carries_wrap_model_changes_but_not_after_model_rewrites() -> None:
    run = agent_with(scripted("answer")).run([("user", "hi")])
    assert run.text == "answer"
    rewritten = agent_with(scripted("answer"), handlers=[Rewrites()]).run([("user", "hi")])
    assert [event.message.text for event in rewritten] == ["ANSWER"]  # type: ignore[union-attr]
    assert rewritten.messages[-1].text == "ANSWER (rewritten)"  # the state has both changes


def test_wrap_model_is_called_again_on_every_retry_attempt() -> None:
    log: list[str] = []
    model = Flaky(failures=2)
    agent = ChatModelAgent(
        model=model,
        handlers=[Logger("A", log)],
        model_retry_config=ModelRetryConfig(max_retries=3),
        clock=ManualClock(),
    )
    run = agent.run([("user", "hi")])
    assert run.error is None and model.calls == 3
    assert log.count("A.wrap_model") == 3
    assert log.count("A.before_model") == 1  # state hooks are not re-run by a retry


class SetState(BaseChatModelAgentMiddleware):
    def __init__(self, **changes: Any) -> None:
        self.changes = changes

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        return ctx, state.override(**self.changes)


def test_state_messages_are_the_model_input() -> None:
    model = scripted("ok")
    swap = SetState(
        messages=[UserMessage.model_validate({"content": [{"type": "text", "text": "swapped"}]})]
    )
    ChatModelAgent(model=model, instruction="sys", handlers=[swap]).run([("user", "hi")])
    assert [m.text for m in model.last.messages] == ["swapped"]
    assert model.last.system_message is None  # the rewrite dropped the system message too


def test_state_tool_infos_are_the_tools_and_deferred_tools_only_when_set() -> None:
    model = scripted("ok")
    only_lookup = SetState(tool_infos=[lookup.schema])
    agent_with(model, tools=[search, lookup], handlers=[only_lookup]).run([("user", "hi")])
    assert model.last.tool_names == ["lookup"]
    assert "deferred_tools" not in model.last.model_settings
    deferred = SetState(tool_infos=[], deferred_tool_infos=[search.schema])
    agent_with(model, handlers=[deferred]).run([("user", "hi")])
    assert model.last.tool_names == []
    assert [tool["name"] for tool in model.last.model_settings["deferred_tools"]] == ["search"]


def test_the_system_message_is_lifted_into_the_final_request() -> None:
    model = scripted("ok")
    ChatModelAgent(model=model, instruction="Be brief.").run([("user", "hi")])
    assert model.last.system_text == "Be brief."
    assert [m.role for m in model.last.messages] == ["user"]


class DropCalls(BaseChatModelAgentMiddleware):
    """Rewrites the model's last message to call lookup instead of search."""

    def after_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        last = state.messages[-1]
        if not last.tool_calls:
            return ctx, state
        changed = last.override(tool_calls=[last.tool_calls[0].override(name="lookup")])
        return ctx, state.override(messages=(*state.messages[:-1], changed))


def test_tool_node_runs_the_calls_of_the_last_message_after_rewrites() -> None:
    model = scripted(call("search", {"q": "x"}), "done")
    run = agent_with(model, tools=[search, lookup], handlers=[DropCalls()]).run([("user", "hi")])
    assert [event.data["tool"] for event in run.trace.tool_calls] == ["lookup"]


class AppendNote(BaseChatModelAgentMiddleware):
    def after_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        note = text_message(UserMessage, "note")
        return ctx, state.override(messages=(*state.messages, note))


def test_a_last_message_without_tool_calls_ends_the_run() -> None:
    model = scripted(call("search", {"q": "x"}), "done")
    run = agent_with(model, handlers=[AppendNote()]).run([("user", "hi")])
    assert run.error is None
    assert run.trace.tool_calls == []  # the model's call is no longer the last message


@pytest.mark.parametrize("streaming", [False, True], ids=["generate", "stream"])
def test_message_ids_are_set_inside_the_wrap_model_handlers(streaming: bool) -> None:
    seen: list[str] = []

    class Peek(BaseChatModelAgentMiddleware):
        def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
            class Look(ModelWrapper):
                def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
                    message = self.inner.generate(ctx, messages, **options)
                    seen.append(message.additional_kwargs["_eino_msg_id"])
                    return message

                def stream(self, ctx: Any, messages: Any, **options: Any) -> Any:
                    chunks = list(self.inner.stream(ctx, messages, **options))
                    seen.append(chunks[0].additional_kwargs["_eino_msg_id"])
                    return iter(chunks)

            return Look(model)

    run = agent_with(scripted(call("search", {"q": "x"}), "done"), handlers=[Peek()]).run(
        [("user", "hi")], enable_streaming=streaming
    )
    assert seen == ["msg-1", "msg-3"]  # msg-2 is the tool message
    assert [e.message.additional_kwargs["_eino_msg_id"] for e in run] == ["msg-1", "msg-2", "msg-3"]  # type: ignore[union-attr]


def test_streaming_tool_wrappers_nest_like_the_invoke_ones() -> None:
    log: list[str] = []
    agent = ChatModelAgent(
        model=scripted(call("kind_tool", {"q": "x"}), "done"),
        tools=[StreamableOnly()],
        handlers=[Logger("w1", log), Logger("w2", log)],
    )
    run = agent.run([("user", "hi")], enable_streaming=True)
    assert run.error is None
    assert [step for step in log if "streamable" in step] == [
        "w1.streamable>",
        "w2.streamable>",
        "w2.streamable<",
        "w1.streamable<",
    ]
    model_steps = [step for step in log if step.split(".")[1] in ("stream>", "stream<")]
    assert model_steps == [
        "w1.stream>", "w2.stream>", "w2.stream<", "w1.stream<",
        "w1.stream>", "w2.stream>", "w2.stream<", "w1.stream<",
    ]  # fmt: skip
