"""Model retry and failover: attempts, decisions, backoff on an injected clock, order."""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.eino import (
    BaseChatModelAgentMiddleware,
    ChatModelAgent,
    ExceedMaxRetriesError,
    FailoverContext,
    InMemoryCheckpointer,
    ManualClock,
    ModelFailoverConfig,
    ModelRetryConfig,
    ModelWrapper,
    RetryContext,
    RetryDecision,
    RetryExhaustedError,
    default_backoff,
    interrupt,
    new_event_sender_model_wrapper,
)
from hookproof.errors import EinoError, UsageError
from hookproof.messages import UserMessage, text_message
from hookproof.models import FinalRequest, RecordingModel, ScriptedModel, call
from tests.eino.helpers import Flaky, Upper, agent_with, scripted, search


def _agent(model: Any, clock: ManualClock | None = None, **kwargs: Any) -> ChatModelAgent:
    return ChatModelAgent(model=model, clock=clock or ManualClock(), **kwargs)


def test_max_retries_n_means_n_plus_one_attempts_then_retry_exhausted() -> None:
    model, clock = Flaky(failures=10), ManualClock()
    run = _agent(model, clock, model_retry_config=ModelRetryConfig(max_retries=3)).run(
        [("user", "x")]
    )
    assert model.calls == 4
    error = run.error
    assert isinstance(error, RetryExhaustedError) and isinstance(error, ExceedMaxRetriesError)
    assert error.total_retries == 3 and str(error.last_error) == "flaky down (4)"
    assert clock.sleeps == [0.1, 0.2, 0.4]  # default backoff, no sleep after the last attempt


def test_default_backoff_doubles_caps_and_adds_jitter() -> None:
    exact = ManualClock()
    assert [default_backoff(n, exact) for n in (0, 1, 2, 7, 8)] == [0.1, 0.1, 0.2, 6.4, 10.0]
    jittery = ManualClock(jitter=0.5)
    assert default_backoff(1, jittery) == pytest.approx(0.125)  # + up to half the delay
    assert default_backoff(9, jittery) == pytest.approx(12.5)  # 10 s + up to 5 s


def test_a_custom_backoff_function_gets_the_attempt_number() -> None:
    clock = ManualClock()
    config = ModelRetryConfig(max_retries=2, backoff_func=lambda ctx, attempt: attempt * 1.5)
    _agent(Flaky(failures=2), clock, model_retry_config=config).run([("user", "x")])
    assert clock.sleeps == [1.5, 3.0]


def test_a_non_retryable_error_is_returned_at_once_unwrapped() -> None:
    model = Flaky(failures=5)
    config = ModelRetryConfig(max_retries=3, is_retryable=lambda ctx, e: "(1)" not in str(e))
    run = _agent(model, model_retry_config=config).run([("user", "x")])
    assert model.calls == 1 and isinstance(run.error, ConnectionError)


def test_should_retry_sees_every_result_and_none_accepts() -> None:
    seen: list[RetryContext] = []

    def decide(ctx: Any, context: RetryContext) -> RetryDecision | None:
        seen.append(context)
        return None

    run = _agent(scripted("fine"), model_retry_config=ModelRetryConfig(3, decide)).run(
        [("user", "x")]
    )
    assert run.text == "fine" and len(seen) == 1
    assert seen[0].retry_attempt == 1 and seen[0].output_message.text == "fine"  # type: ignore[union-attr]
    assert seen[0].error is None and seen[0].input_messages[-1].text == "x"


def test_should_retry_can_rewrite_the_error_of_a_good_looking_answer() -> None:
    def decide(ctx: Any, context: RetryContext) -> RetryDecision:
        return RetryDecision(retry=False, rewrite_error=PermissionError("answer leaks data"))

    run = _agent(scripted("secret"), model_retry_config=ModelRetryConfig(3, decide)).run(
        [("user", "x")]
    )
    assert isinstance(run.error, PermissionError) and run.kinds() == ["error"]


def test_rejected_outputs_send_no_event_and_modified_input_is_used_for_the_retry() -> None:
    model = scripted("too long", "short")

    def decide(ctx: Any, context: RetryContext) -> RetryDecision | None:
        if context.output_message is not None and context.output_message.text == "too long":
            shorter = (*context.input_messages, text_message(UserMessage, "be brief"))
            return RetryDecision(
                retry=True,
                modified_input_messages=shorter,
                additional_options={"max_tokens": 10},
                backoff=0.25,
            )
        return None

    clock = ManualClock()
    run = _agent(model, clock, model_retry_config=ModelRetryConfig(2, decide)).run([("user", "x")])
    assert [event.message.text for event in run] == ["short"]  # type: ignore[union-attr]
    assert [m.text for m in model.requests[1].messages] == ["x", "be brief"]
    assert model.requests[1].model_settings["max_tokens"] == 10
    assert clock.sleeps == [0.25]
    assert [m.text for m in run.messages] == ["x", "short"]  # not persisted


def test_persisted_modified_input_replaces_the_agents_messages() -> None:
    model = scripted("bad", "good")

    def decide(ctx: Any, context: RetryContext) -> RetryDecision | None:
        if context.retry_attempt == 1:
            compact = (text_message(UserMessage, "compacted"),)
            return RetryDecision(
                retry=True, modified_input_messages=compact, persist_modified_input_messages=True
            )
        return None

    run = _agent(model, model_retry_config=ModelRetryConfig(1, decide)).run([("user", "x")])
    assert [m.text for m in run.messages] == ["compacted", "good"]


def test_retrying_an_accepted_looking_output_until_exhausted_names_the_rejection() -> None:
    def always(ctx: Any, context: RetryContext) -> RetryDecision:
        return RetryDecision(retry=True)

    run = _agent(scripted("a", "b"), model_retry_config=ModelRetryConfig(1, always)).run(
        [("user", "x")]
    )
    assert str(run.error) == (
        "exceeds max retries: last error: model output rejected by ShouldRetry at attempt 2"
    )


def _named(name: str, *turns: Any) -> RecordingModel:
    return RecordingModel(ScriptedModel(list(turns), name=name))


def test_failover_switches_models_after_a_failure() -> None:
    primary = Flaky(failures=10, name="primary")
    backup = _named("backup", "from backup")
    contexts: list[FailoverContext] = []

    def pick(ctx: Any, context: FailoverContext) -> Any:
        contexts.append(context)
        return backup

    config = ModelFailoverConfig(
        max_retries=2,
        should_failover=lambda ctx, out, err: err is not None,
        get_failover_model=pick,
    )
    run = _agent(primary, model_failover_config=config).run([("user", "x")])
    assert run.text == "from backup" and primary.calls == 1
    assert contexts[0].failover_attempt == 1
    assert isinstance(contexts[0].last_error, ConnectionError)
    assert contexts[0].last_output_message is None
    assert [m.text for m in contexts[0].input_messages] == ["x"]


def test_failover_remembers_the_model_that_succeeded_within_a_run() -> None:
    primary = Flaky(failures=10, name="primary")
    backup = _named("backup", call("search", {"q": "x"}), "done")
    config = ModelFailoverConfig(
        max_retries=1,
        should_failover=lambda ctx, out, err: err is not None,
        get_failover_model=lambda ctx, fc: backup,
    )
    run = _agent(primary, tools=[search], model_failover_config=config).run([("user", "x")])
    assert run.error is None and primary.calls == 1  # the 2nd model call went to backup first
    assert [request.model for request in backup.requests] == ["backup", "backup"]


def test_failover_sits_outside_retry_so_it_sees_retry_exhausted() -> None:
    seen: list[Any] = []

    def pick(ctx: Any, context: FailoverContext) -> Any:
        seen.append(context.last_error)
        return _named("backup", "saved")

    run = _agent(
        Flaky(failures=10),
        model_retry_config=ModelRetryConfig(max_retries=1),
        model_failover_config=ModelFailoverConfig(1, lambda c, o, e: e is not None, pick),
    ).run([("user", "x")])
    assert run.text == "saved"
    assert isinstance(seen[0], RetryExhaustedError)
    events = [e for e in run.trace if e.kind == "event" and e.hook in ("retry", "failover")]
    assert [e.hook for e in events] == ["retry", "retry", "failover"]


def test_failover_can_replace_the_input_and_a_missing_model_is_an_error() -> None:
    backup = _named("backup", "ok")

    def with_input(ctx: Any, context: FailoverContext) -> Any:
        return backup, [text_message(UserMessage, "shorter")]

    _agent(
        Flaky(failures=1),
        model_failover_config=ModelFailoverConfig(1, lambda c, o, e: e is not None, with_input),
    ).run([("user", "x")])
    assert [m.text for m in backup.last.messages] == ["shorter"]
    run = _agent(
        Flaky(failures=1),
        model_failover_config=ModelFailoverConfig(
            2, lambda c, o, e: e is not None, lambda c, f: None
        ),
    ).run([("user", "x")])
    assert isinstance(run.error, EinoError)
    assert str(run.error) == "failover GetFailoverModel returned nil model at attempt 1"


def test_failover_exhausted_returns_the_last_error() -> None:
    run = _agent(
        Flaky(failures=10, name="a"),
        model_failover_config=ModelFailoverConfig(
            1, lambda c, o, e: e is not None, lambda c, f: Flaky(failures=10, name="b")
        ),
    ).run([("user", "x")])
    assert str(run.error) == "b down (1)"


def test_failover_that_should_not_happen_returns_the_error() -> None:
    run = _agent(
        Flaky(failures=10),
        model_failover_config=ModelFailoverConfig(1, lambda c, o, e: False, lambda c, f: None),
    ).run([("user", "x")])
    assert isinstance(run.error, ConnectionError)


def test_configs_are_validated() -> None:
    with pytest.raises(UsageError, match="cannot be negative"):
        ModelRetryConfig(max_retries=-1)
    with pytest.raises(UsageError, match="needs both"):
        ModelFailoverConfig(1, None, None)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"must be a hookproof\.eino\.ModelRetryConfig"):
        ChatModelAgent(model=scripted("x"), model_retry_config={"max_retries": 1})  # type: ignore[arg-type]


def test_final_requests_name_the_model_that_answered() -> None:
    backup = _named("backup", "ok")
    run = _agent(
        Flaky(failures=1, name="primary"),
        model_failover_config=ModelFailoverConfig(
            1, lambda c, o, e: e is not None, lambda c, f: backup
        ),
    ).run([("user", "x")])
    assert [request.model for request in run.final_requests] == ["primary", "backup"]
    assert isinstance(run.final_requests[0], FinalRequest)


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


def test_a_retry_config_can_carry_its_own_clock_and_eino_field_names() -> None:
    own, agents = ManualClock(), ManualClock()
    config = ModelRetryConfig(max_retries=2, clock=own, backoff_func=lambda ctx, n: n * 0.5)
    run = ChatModelAgent(model=Flaky(failures=5), model_retry_config=config, clock=agents).run(
        [("user", "x")]
    )
    assert own.sleeps == [0.5, 1.0] and agents.sleeps == []
    assert run.error.last_err is run.error.last_error  # type: ignore[union-attr]


def test_failover_sees_input_a_retry_persisted() -> None:

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


def test_a_streaming_retry_sends_the_rejected_attempts_stream_ending_in_will_retry() -> None:
    # Eino streams every attempt's output as it comes; retry's verdict ends a rejected
    # one's stream in WillRetryError instead of its end
    from hookproof.errors import WillRetryError

    def rejects_again(_ctx: Any, attempt: Any) -> Any:
        output = attempt.output_message
        rejected = output is not None and output.text == "again"
        return RetryDecision(retry=True, reject_reason="repeats itself") if rejected else None

    config = ModelRetryConfig(max_retries=1, should_retry=rejects_again, backoff_func=lambda *_: 0)
    agent = agent_with(scripted("again", "done"), model_retry_config=config)
    run = agent.run([("user", "x")], enable_streaming=True)
    rejected, accepted = run.events
    assert isinstance(rejected.stream_error, WillRetryError)
    assert rejected.stream_error.retry_attempt == 0 and rejected.message.text == "again"  # type: ignore[union-attr]
    assert str(rejected.stream_error) == "model output rejected by ShouldRetry at attempt 1"
    assert rejected.stream_error.reject_reason == "repeats itself"
    assert accepted.stream_error is None and run.error is None and run.text == "done"
    unstreamed = agent_with(scripted("again", "done"), model_retry_config=config)
    assert unstreamed.run([("user", "x")]).kinds() == ["model_output"]  # no rejected event
