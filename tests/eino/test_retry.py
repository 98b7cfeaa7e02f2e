"""Model retry and failover: attempts, decisions, backoff on an injected clock, order."""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.eino import (
    ChatModelAgent,
    ErrExceedMaxRetries,
    ExceedMaxRetriesError,
    FailoverContext,
    ManualClock,
    ModelFailoverConfig,
    ModelRetryConfig,
    RetryContext,
    RetryDecision,
    RetryExhaustedError,
    default_backoff,
)
from hookproof.eino._core import EinoError
from hookproof.errors import UsageError
from hookproof.messages import UserMessage, text_message
from hookproof.models import FinalRequest, RecordingModel, ScriptedModel, call
from tests.eino.helpers import Flaky, scripted, search


def _agent(model: Any, clock: ManualClock | None = None, **kwargs: Any) -> ChatModelAgent:
    return ChatModelAgent(model=model, clock=clock or ManualClock(), **kwargs)


def test_max_retries_n_means_n_plus_one_attempts_then_retry_exhausted() -> None:
    model, clock = Flaky(failures=10), ManualClock()
    run = _agent(model, clock, model_retry_config=ModelRetryConfig(max_retries=3)).run(
        [("user", "x")]
    )
    assert model.calls == 4
    error = run.error
    assert isinstance(error, RetryExhaustedError) and isinstance(error, ErrExceedMaxRetries)
    assert ErrExceedMaxRetries is ExceedMaxRetriesError
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
