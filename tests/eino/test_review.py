"""Defects found in review of the Eino dialect, each pinned by a test."""

from __future__ import annotations

import collections
import dataclasses
import enum
import json
from typing import Any, NamedTuple

import pytest

from hookproof.eino import (
    BaseChatModelAgentMiddleware,
    ChatModelAgent,
    ChatModelAgentContext,
    ChatModelAgentState,
    InMemoryCheckpointer,
    ManualClock,
    ModelFailoverConfig,
    ModelRetryConfig,
    ModelWrapper,
    RetryDecision,
    RunContext,
    SerializationError,
    interrupt,
    new_event_sender_model_wrapper,
    register_name,
)
from hookproof.eino._serial import decode, encode
from hookproof.eino.toolsearch import ToolSearchMiddleware
from hookproof.errors import UsageError
from hookproof.messages import AssistantMessage, UserMessage, text_message
from hookproof.models import call
from tests.eino.helpers import Flaky, agent_with, lookup, scripted, search


def _failover_to(backup: Any, *, retries: int = 1, when: Any = None) -> ModelFailoverConfig:
    return ModelFailoverConfig(
        max_retries=retries,
        should_failover=when or (lambda ctx, out, err: err is not None),
        get_failover_model=lambda ctx, context: backup,
    )


@pytest.mark.parametrize("streaming", [False, True], ids=["invoke", "stream"])
def test_failover_works_in_both_modes(streaming: bool) -> None:
    agent = ChatModelAgent(model=scripted("hello"), model_failover_config=_failover_to(None))
    run = agent.run([("user", "hi")], enable_streaming=streaming)
    assert run.error is None and run.kinds() == ["model_output"] and run.text == "hello"
    failing = ChatModelAgent(
        model=Flaky(failures=1), model_failover_config=_failover_to(scripted("backup"))
    )
    run = failing.run([("user", "hi")], enable_streaming=streaming)
    assert run.error is None and run.text == "backup"


def test_failover_judges_failures_only_and_a_failed_attempt_sends_no_event() -> None:
    judged: list[Any] = []

    def when(ctx: Any, out: Any, err: Any) -> bool:
        judged.append(err)
        return True

    success = ChatModelAgent(
        model=scripted("first"), model_failover_config=_failover_to(None, when=when)
    )
    assert success.run([("user", "hi")]).text == "first" and judged == []  # as in Eino
    failing = ChatModelAgent(
        model=Flaky(failures=1), model_failover_config=_failover_to(scripted("good"), when=when)
    )
    run = failing.run([("user", "hi")])
    assert [event.message.text for event in run] == ["good"]  # type: ignore[union-attr]
    assert [type(error).__name__ for error in judged] == ["ConnectionError"]


class Upper(BaseChatModelAgentMiddleware):
    def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
        class Shout(ModelWrapper):
            def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
                message = self.inner.generate(ctx, messages, **options)
                return text_message(AssistantMessage, message.text.upper())

        return Shout(model)


@pytest.mark.parametrize("deciding", [False, True], ids=["plain", "should_retry"])
def test_a_placed_event_sender_keeps_its_position_under_retry(deciding: bool) -> None:
    retry = ModelRetryConfig(1, should_retry=(lambda ctx, rc: None) if deciding else None)
    agent = ChatModelAgent(
        model=scripted("answer"),
        handlers=[Upper(), new_event_sender_model_wrapper()],
        model_retry_config=retry,
        clock=ManualClock(),
    )
    run = agent.run([("user", "hi")])
    assert [event.message.text for event in run] == ["answer"]  # type: ignore[union-attr]
    assert run.messages[-1].text == "ANSWER"


def test_should_retry_returning_a_bool_is_a_clear_usage_error() -> None:
    agent = ChatModelAgent(
        model=Flaky(failures=1),
        model_retry_config=ModelRetryConfig(1, should_retry=lambda ctx, rc: True),  # type: ignore[arg-type,return-value]
    )
    run = agent.run([("user", "hi")])
    assert isinstance(run.error, UsageError)
    assert "should_retry returned bool" in str(run.error) and "is_retryable=" in str(run.error)
    assert RetryDecision(retry=True).retry


def test_failover_max_retries_must_not_be_negative() -> None:
    with pytest.raises(UsageError, match="must be an int >= 0"):
        _failover_to(None, retries=-1)


class Approval(BaseChatModelAgentMiddleware):
    def __init__(self) -> None:
        self.answers: list[Any] = []

    def after_agent(self, ctx: Any, state: Any) -> Any:
        self.answers.append(interrupt({"publish": state.messages[-1].text}))
        return ctx


def test_interrupt_in_after_agent_pauses_and_resume_finishes() -> None:
    approval = Approval()
    agent = agent_with(scripted("draft"), handlers=[approval], checkpointer=InMemoryCheckpointer())
    paused = agent.run([("user", "write")], checkpoint_id="t")
    assert paused.kinds() == ["model_output", "interrupt"] and approval.answers == []
    done = agent.resume("t", "ship it")
    assert done.error is None and approval.answers == ["ship it"]


def test_interrupt_in_before_agent_is_refused_with_a_reason() -> None:
    class Early(BaseChatModelAgentMiddleware):
        def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
            interrupt("?")
            return ctx, agent_ctx

    run = agent_with(scripted("x"), handlers=[Early()], checkpointer=InMemoryCheckpointer()).run(
        [("user", "x")], checkpoint_id="t"
    )
    assert isinstance(run.error, UsageError)
    assert "cannot pause before it has started" in str(run.error)


def test_interrupt_without_a_checkpointer_says_how_to_pause() -> None:
    class Ask(BaseChatModelAgentMiddleware):
        def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            interrupt("?")
            return ctx, state

    run = agent_with(scripted("x"), handlers=[Ask()]).run([("user", "x")])
    assert "Ask.before_model_rewrite_state" in str(run.error)
    assert "run(..., checkpoint_id=...)" in str(run.error) and "resume()" in str(run.error)


def test_a_handler_class_instead_of_an_instance_is_refused() -> None:
    with pytest.raises(UsageError, match=r"handlers=\[Upper\(\)\]"):
        ChatModelAgent(model=scripted("x"), handlers=[Upper])


def test_hooks_set_on_an_instance_run() -> None:
    seen: list[int] = []
    handler = BaseChatModelAgentMiddleware()

    def before(ctx: Any, state: Any, model_ctx: Any) -> Any:
        seen.append(len(state.messages))
        return ctx, state

    handler.before_model_rewrite_state = before  # type: ignore[method-assign]
    agent_with(scripted("x"), handlers=[handler]).run([("user", "x")])
    assert seen == [1]


def test_helpers_named_like_hooks_are_allowed_but_near_misses_are_not() -> None:
    class Helpers(BaseChatModelAgentMiddleware):
        @staticmethod
        def wrap_text(text: str) -> str:
            return text

    ChatModelAgent(model=scripted("x"), handlers=[Helpers()])

    class Typo(BaseChatModelAgentMiddleware):
        def after_agnet(self, ctx: Any, state: Any) -> Any:
            return ctx

    with pytest.raises(UsageError, match="Did you mean 'after_agent'"):
        ChatModelAgent(model=scripted("x"), handlers=[Typo()])


def test_calls_reusing_an_id_from_an_earlier_turn_still_run() -> None:
    model = scripted(call("search", {"q": "a"}, id="0"), call("lookup", {"q": "b"}, id="0"), "ok")
    run = agent_with(model, tools=[search, lookup]).run([("user", "x")])
    assert [event.data["tool"] for event in run.trace.tool_calls] == ["search", "lookup"]
    assert run.error is None


class Point(NamedTuple):
    x: int


class Level(enum.StrEnum):
    LOW = "low"


@dataclasses.dataclass
class Totals:
    seen: int
    total: int = dataclasses.field(init=False, default=0)


register_name("tests.eino.Level", Level)
register_name("tests.eino.Totals", Totals)


@pytest.mark.parametrize(
    ("value", "hint"),
    [
        (Point(1), "Store tuple(value)"),
        (collections.Counter("ab"), "Store dict(value)"),
        ({1, 2}, "Store sorted(value)"),
        (b"raw", "base64"),
    ],
)
def test_subclasses_and_other_builtins_are_refused_with_a_conversion(value: Any, hint: str) -> None:
    with pytest.raises(SerializationError, match="cannot be saved in a checkpoint") as raised:
        encode(value, what="value")
    assert hint in str(raised.value)


def test_registered_enums_and_init_false_fields_round_trip() -> None:
    totals = Totals(seen=2)
    totals.total = 7
    back = decode(encode([Level.LOW, totals], what="value"))
    assert back == [Level.LOW, totals] and back[1].total == 7


def test_register_name_refuses_types_it_cannot_save() -> None:
    with pytest.raises(UsageError, match="Store sorted"):
        register_name("tests.eino.set", set)


def test_rewritten_state_is_checked_and_coerced() -> None:
    state = ChatModelAgentState().override(messages=[("user", "be brief")])
    assert isinstance(state.messages[0], UserMessage)
    assert ChatModelAgentState(tool_infos=[search]).tool_infos == (search.schema,)
    with pytest.raises(UsageError, match="tool infos are ToolInfo values"):
        ChatModelAgentState(tool_infos=["search"])
    with pytest.raises(UsageError, match=r"write return_directly=\['search'\]"):
        ChatModelAgentContext().override(return_directly="search")


def test_tool_search_survives_arguments_that_are_not_an_object() -> None:
    middleware = ToolSearchMiddleware([lookup])
    model = scripted(call("tool_search", {"query": "lookup"}), "ok")
    run = agent_with(model, handlers=[middleware]).run([("user", "x")])
    assert run.error is None
    context = ChatModelAgentContext()
    search_tool = middleware.before_agent(RunContext(), context)[1].tools[0]
    assert json.loads(search_tool.invokable_run(RunContext(), "[1, 2]"))["matches"] == []


def test_legacy_additional_tools_must_be_a_list() -> None:
    from hookproof.eino import AgentMiddleware

    with pytest.raises(UsageError, match=r"additional_tools=\[my_tool\]"):
        ChatModelAgent(model=scripted("x"), middlewares=[AgentMiddleware(additional_tools=search)])  # type: ignore[arg-type]


def test_a_function_tool_can_take_the_run_ctx() -> None:
    from hookproof.eino import AgentEvent, send_event
    from hookproof.tools import tool

    @tool
    def progress(step: int, ctx: RunContext) -> str:
        """Reports progress."""
        send_event(ctx, AgentEvent(custom={"step": step, "tenant": ctx.value("tenant")}))
        return "ok"

    assert list(progress.parameters["properties"]) == ["step"]  # ctx is not in the schema
    run = agent_with(scripted(call("progress", {"step": 2}), "done"), tools=[progress]).run(
        [("user", "x")], {"tenant": "acme"}
    )
    assert run.events[1].custom == {"step": 2, "tenant": "acme"}


def test_a_run_can_be_iterated_again_and_stepped_like_eino() -> None:
    run = agent_with(scripted("a")).run([("user", "x")])
    assert list(run) == list(run) == list(run.events) and len(run) == 1
    assert run.next() == (run.events[0], True)
    assert run.next() == (None, False)


def test_a_plain_function_as_legacy_wrap_tool_call_is_refused() -> None:
    from hookproof.eino import AgentMiddleware

    with pytest.raises(UsageError, match=r"wrap_tool_call=ToolMiddleware\(invokable="):
        ChatModelAgent(
            model=scripted("x"),
            middlewares=[AgentMiddleware(wrap_tool_call=lambda next: next)],  # type: ignore[arg-type]
        )


def test_langchain_hook_names_point_to_the_eino_names() -> None:
    class LangChainHabit(BaseChatModelAgentMiddleware):
        def before_model(self, state: Any, runtime: Any) -> Any:
            return None

    with pytest.raises(UsageError, match="here it is before_model_rewrite_state"):
        ChatModelAgent(model=scripted("x"), handlers=[LangChainHabit()])


def test_run_with_a_string_or_a_langchain_dict_says_what_it_takes() -> None:
    agent = agent_with(scripted("x"))
    for wrong in ("hi", {"messages": [("user", "hi")]}):
        with pytest.raises(UsageError, match=r"agent.run\(\[\('user', 'hello'\)\]\)"):
            agent.run(wrong)  # type: ignore[arg-type]


def test_a_tool_call_turn_describes_its_calls() -> None:
    run = agent_with(scripted(call("search", {"q": "x"}), "done")).run([("user", "x")])
    assert run.events[0].describe() == "model_output: calls search"


# -- second review ------------------------------------------------------------------------


class NoIdModel:
    """A model written Eino's way that gives tool calls without ids."""

    hookproof_offline = True

    def __init__(self, *turns: Any) -> None:
        self.turns = list(turns)

    def generate(self, ctx: Any, messages: Any, **options: Any) -> AssistantMessage:
        from hookproof.messages import ToolCall, construct

        turn = self.turns.pop(0)
        if isinstance(turn, str):
            return text_message(AssistantMessage, turn)
        calls = tuple(ToolCall(name=name, args=args) for name, args in turn)
        return construct(AssistantMessage, content=(), tool_calls=calls)


def test_calls_without_ids_each_run_and_return_directly_finds_its_call() -> None:
    model = NoIdModel([("search", {"q": "a"}), ("search", {"q": "b"})], "done")
    run = agent_with(model).run([("user", "x")])
    assert [m.text for m in run.messages if m.role == "tool"] == ["found a", "found b"]
    direct = NoIdModel([("search", {"q": "a"}), ("lookup", {"q": "b"})], "never")
    run = agent_with(direct, tools=[search, lookup], return_directly=["lookup"]).run(
        [("user", "x")]
    )
    assert run.text == "customer b" and run.kinds()[-1] == "tool_result"


def test_a_callback_reading_a_stream_leaves_the_result_whole() -> None:
    from hookproof.eino import CallbackHandler
    from tests.eino.helpers import StreamableOnly

    seen: list[Any] = []

    class Reads(CallbackHandler):
        def on_end(self, ctx: Any, info: Any, output: Any) -> Any:
            seen.append((info.component, list(output) if info.component == "Tool" else None))
            return ctx

    for streaming in (False, True):
        agent = ChatModelAgent(
            model=scripted(call("kind_tool", {"q": "x"}), "done"),
            tools=[StreamableOnly()],
            callbacks=[Reads()],
        )
        run = agent.run([("user", "x")], enable_streaming=streaming)
        assert run.events[1].message.text == "stream"  # type: ignore[union-attr]
    assert ("Tool", ["str", "eam"]) in seen


class Tags(BaseChatModelAgentMiddleware):
    def __init__(self) -> None:
        self.seen: list[Any] = []

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        return ctx.with_value("tag", f"call-{len(state.messages)}"), state

    def after_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        answer = interrupt("check") if len(state.messages) == 2 else None
        self.seen.append((ctx.value("tag"), ctx.value("tenant"), answer))
        return ctx, state


def test_the_model_calls_ctx_chain_survives_a_resume() -> None:
    tags = Tags()
    agent = agent_with(scripted("answer"), handlers=[tags], checkpointer=InMemoryCheckpointer())
    assert agent.run([("user", "x")], {"tenant": "acme"}, checkpoint_id="t").interrupted
    done = agent.resume("t", "fine", {"tenant": "acme"})
    assert done.error is None
    assert tags.seen == [("call-1", "acme", "fine")]  # the tag set before the pause is back


def test_a_discarded_plain_retry_attempt_sends_no_event() -> None:
    class FailsFirst(BaseChatModelAgentMiddleware):
        calls = 0

        def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
            outer = self

            class Check(ModelWrapper):
                def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
                    message = self.inner.generate(ctx, messages, **options)
                    outer.calls += 1
                    if outer.calls == 1:
                        raise ValueError("first answer rejected")
                    return message

            return Check(model)

    agent = ChatModelAgent(
        model=scripted("bad", "good"),
        handlers=[FailsFirst(), new_event_sender_model_wrapper()],
        model_retry_config=ModelRetryConfig(max_retries=1),
        clock=ManualClock(),
    )
    run = agent.run([("user", "x")])
    assert [event.message.text for event in run] == ["good"]  # type: ignore[union-attr]


def test_events_and_interrupts_are_credited_to_the_layer_that_sent_them() -> None:
    from hookproof.eino import AgentEvent, send_event

    class Audit(BaseChatModelAgentMiddleware):
        def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
            def audited(ctx: Any, arguments: str) -> Any:
                result = endpoint(ctx, arguments)
                send_event(ctx, AgentEvent(custom="after"))
                return result

            return audited

    run = agent_with(scripted(call("search", {"q": "x"}), "ok"), handlers=[Audit()]).run(
        [("user", "x")]
    )
    sent = [e for e in run.trace if e.kind == "event" and e.data.get("kind") == "custom"]
    assert [e.middleware for e in sent] == ["Audit.tool_wrapper"]


def test_streamed_chunks_merge_their_metadata() -> None:
    from hookproof.eino._core import concat_messages
    from hookproof.messages import construct

    first = text_message(AssistantMessage, "Hel")
    last = construct(
        AssistantMessage,
        content=text_message(AssistantMessage, "lo").content,
        response_metadata={"finish_reason": "stop"},
    )
    whole = concat_messages((first, last))
    assert whole.text == "Hello" and whole.response_metadata == {"finish_reason": "stop"}


def test_tool_arguments_handler_rewrites_arguments_before_every_layer() -> None:
    seen: list[str] = []

    class Peek(BaseChatModelAgentMiddleware):
        def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
            def peek(ctx: Any, arguments: str) -> Any:
                seen.append(arguments)
                return endpoint(ctx, arguments)

            return peek

    agent = agent_with(
        scripted(call("search", {"query": "x"}), "ok"),
        handlers=[Peek()],
        tool_arguments_handler=lambda ctx, name, args: args.replace('"query"', '"q"'),
    )
    run = agent.run([("user", "x")])
    assert seen == ['{"q":"x"}'] and run.messages[2].text == "found x"


# -- behaviours the spec states, pinned --------------------------------------------------


def test_interrupts_are_never_retried_or_failed_over() -> None:
    class Ask(BaseChatModelAgentMiddleware):
        calls = 0

        def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
            Ask.calls += 1
            interrupt("?") if Ask.calls == 1 else None
            return model

    agent = ChatModelAgent(
        model=scripted("ok"),
        handlers=[Ask()],
        model_retry_config=ModelRetryConfig(max_retries=3),
        model_failover_config=_failover_to(scripted("other"), retries=2),
        checkpointer=InMemoryCheckpointer(),
        clock=ManualClock(),
    )
    run = agent.run([("user", "x")], checkpoint_id="t")
    assert run.interrupted and Ask.calls == 1
    assert agent.resume("t", "go").text == "ok"


def test_before_agent_ctx_chains_across_handlers_and_runs_on_resume() -> None:
    seen: list[Any] = []

    class Adds(BaseChatModelAgentMiddleware):
        def __init__(self, key: str) -> None:
            self.key = key

        def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
            seen.append((self.key, sorted(ctx.values)))
            return ctx.with_value(self.key, True), agent_ctx

    class Pause(BaseChatModelAgentMiddleware):
        def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            interrupt("?")
            return ctx, state

    agent = agent_with(
        scripted("ok"),
        handlers=[Adds("a"), Adds("b"), Pause()],
        checkpointer=InMemoryCheckpointer(),
    )
    agent.run([("user", "x")], checkpoint_id="t")
    agent.resume("t", "go")
    assert seen == [("a", []), ("b", ["a"]), ("a", []), ("b", ["a"])]


def test_run_local_values_work_in_the_legacy_hooks_and_model_context_has_the_configs() -> None:
    from hookproof.eino import AgentMiddleware, get_run_local_value, set_run_local_value

    seen: list[Any] = []

    def before(ctx: Any, state: Any) -> None:
        set_run_local_value(ctx, "legacy", 1)

    def after(ctx: Any, state: Any) -> None:
        seen.append(get_run_local_value(ctx, "legacy"))

    class Configs(BaseChatModelAgentMiddleware):
        def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
            seen.append((model_ctx.model_retry_config, [t.name for t in model_ctx.tools]))
            return model

    retry = ModelRetryConfig(max_retries=1)
    agent_with(
        scripted("ok"),
        middlewares=[AgentMiddleware(before_chat_model=before, after_chat_model=after)],
        handlers=[Configs()],
        model_retry_config=retry,
    ).run([("user", "x")])
    assert seen == [(retry, ["search"]), (1, True)]


def test_a_message_id_the_model_set_is_kept_and_matches_the_event() -> None:
    message = AssistantMessage.model_validate(
        {"content": [{"type": "text", "text": "hi"}], "additional_kwargs": {"_eino_msg_id": "m-7"}}
    )
    run = agent_with(scripted(message)).run([("user", "x")])
    assert run.events[0].message.additional_kwargs["_eino_msg_id"] == "m-7"  # type: ignore[union-attr]
    assert run.messages[-1].additional_kwargs["_eino_msg_id"] == "m-7"


def test_tool_infos_set_to_none_are_refilled_at_the_next_model_call() -> None:
    class Clears(BaseChatModelAgentMiddleware):
        def after_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            return ctx, state.override(tool_infos=None)

    model = scripted(call("search", {"q": "x"}), "ok")
    agent_with(model, handlers=[Clears()]).run([("user", "x")])
    assert [request.tool_names for request in model.requests] == [["search"], ["search"]]


def test_the_held_return_directly_event_comes_before_after_agent_events() -> None:
    from hookproof.eino import AgentEvent, send_event

    class Announce(BaseChatModelAgentMiddleware):
        def after_agent(self, ctx: Any, state: Any) -> Any:
            send_event(ctx, AgentEvent(custom="finished"))
            return ctx

    run = agent_with(
        scripted(call("search", {"q": "x"})), return_directly=["search"], handlers=[Announce()]
    ).run([("user", "x")])
    assert run.kinds() == ["model_output", "tool_result", "custom"]


def test_register_name_also_decorates_and_takes_the_class_first() -> None:
    @register_name("tests.eino.Decorated")
    @dataclasses.dataclass
    class Decorated:
        n: int

    @dataclasses.dataclass
    class Swapped:
        n: int

    assert register_name(Swapped, "tests.eino.Swapped") is Swapped
    assert decode(encode([Decorated(1), Swapped(2)], what="v")) == [Decorated(1), Swapped(2)]


def test_a_retry_config_can_carry_its_own_clock_and_eino_field_names() -> None:
    own, agents = ManualClock(), ManualClock()
    config = ModelRetryConfig(max_retries=2, clock=own, backoff_func=lambda ctx, n: n * 0.5)
    run = ChatModelAgent(model=Flaky(failures=5), model_retry_config=config, clock=agents).run(
        [("user", "x")]
    )
    assert own.sleeps == [0.5, 1.0] and agents.sleeps == []
    assert run.error.last_err is run.error.last_error  # type: ignore[union-attr]


def test_a_wrapper_that_omits_options_keeps_the_tools() -> None:
    class Forgetful(BaseChatModelAgentMiddleware):
        def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
            class Drop(ModelWrapper):
                def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
                    return self.inner.generate(ctx, messages)  # options left out

            return Drop(model)

    model = scripted("ok")
    agent_with(model, handlers=[Forgetful()]).run([("user", "x")])
    assert model.last.tool_names == ["search"]


# -- from porting Eino's own tests --------------------------------------------------------


class ChunkModel:
    """An Eino-style model that streams its answer in chunks, optionally failing midway."""

    hookproof_offline = True

    def __init__(self, *answers: Any, fail_after: int | None = None) -> None:
        self.answers, self.fail_after, self.inputs = list(answers), fail_after, []

    def stream(self, ctx: Any, messages: Any, **options: Any) -> Any:
        self.inputs.append([m.text for m in messages])
        parts = self.answers.pop(0)
        for index, part in enumerate(parts):
            if self.fail_after is not None and index == self.fail_after:
                self.fail_after = None
                raise ConnectionError("stream cut")
            yield text_message(AssistantMessage, part)


def test_an_eino_style_stream_keeps_its_chunks_and_the_id_is_on_the_first() -> None:
    run = ChatModelAgent(model=ChunkModel(("a", "b", "c"))).run(
        [("user", "x")], enable_streaming=True
    )
    chunks = run.events[0].chunks
    assert [chunk.text for chunk in chunks] == ["a", "b", "c"]
    assert [bool(chunk.additional_kwargs.get("_eino_msg_id")) for chunk in chunks] == [
        True,
        False,
        False,
    ]
    assert run.text == "abc"


def test_a_stream_that_fails_midway_shows_its_partial_output_to_the_deciders() -> None:
    seen: list[Any] = []

    def decide(ctx: Any, context: Any) -> RetryDecision | None:
        seen.append((context.output_message and context.output_message.text, context.error))
        return RetryDecision(retry=True) if context.error is not None else None

    model = ChunkModel(("p1", "p2", "p3"), ("ok",), fail_after=2)
    agent = ChatModelAgent(
        model=model, model_retry_config=ModelRetryConfig(1, decide), clock=ManualClock()
    )
    run = agent.run([("user", "x")], enable_streaming=True)
    assert run.text == "ok"
    assert seen[0][0] == "p1p2" and isinstance(seen[0][1], ConnectionError)


def test_failover_sees_input_a_retry_persisted() -> None:
    from hookproof.eino import FailoverContext

    contexts: list[FailoverContext] = []

    def repair(ctx: Any, context: Any) -> RetryDecision | None:
        if context.error is None:
            return None
        fixed = (text_message(UserMessage, "repaired"),)
        return RetryDecision(
            retry=True, modified_input_messages=fixed, persist_modified_input_messages=True
        )

    def pick(ctx: Any, context: FailoverContext) -> Any:
        contexts.append(context)
        return scripted("from backup")

    agent = ChatModelAgent(
        model=Flaky(failures=5),
        model_retry_config=ModelRetryConfig(1, repair),
        model_failover_config=ModelFailoverConfig(1, lambda c, o, e: e is not None, pick),
        clock=ManualClock(),
    )
    run = agent.run([("user", "x")])
    assert run.text == "from backup"
    assert [m.text for m in contexts[0].input_messages] == ["repaired"]


def test_the_unregistered_type_error_offers_the_ctx_instead() -> None:
    class Plain:
        pass

    with pytest.raises(SerializationError, match=r"ctx.with_value\(key, value\)"):
        encode(Plain(), what="value")


def test_a_run_failing_in_before_agent_still_closes_its_trace() -> None:
    from hookproof.contracts import check_hook_order

    class Refuses(BaseChatModelAgentMiddleware):
        def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
            raise PermissionError("no")

    run = agent_with(scripted("x"), handlers=[Refuses()]).run([("user", "x")])
    last = [event for event in run.trace if event.kind == "agent"][-1]
    assert (last.hook, last.phase, last.data["error"]) == ("run", "error", "HandlerError")
    check_hook_order(run.trace)
