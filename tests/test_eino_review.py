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
from tests.eino_helpers import Flaky, agent_with, lookup, scripted, search


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


def test_an_output_failover_rejects_sends_no_event() -> None:
    bad_then_good = ChatModelAgent(
        model=scripted("bad"),
        model_failover_config=_failover_to(
            scripted("good"), when=lambda ctx, out, err: err is not None or out.text == "bad"
        ),
    )
    run = bad_then_good.run([("user", "hi")])
    assert [event.message.text for event in run] == ["good"]  # type: ignore[union-attr]
    assert [m.text for m in run.messages] == ["hi", "good"]


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
