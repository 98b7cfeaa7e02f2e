"""The failover and retry layers of the model call (spec section 3): attempts, the held
model-output event of an attempt not yet accepted, backoff and the deciders."""

from __future__ import annotations

from typing import Any

from hookproof._engine.checkpoint import InterruptRaised
from hookproof._support.frozen import FrozenDict
from hookproof.eino._model_call import Inner, ModelCall, message_of
from hookproof.eino._retry import (
    FailoverContext,
    RetryContext,
    RetryDecision,
    RetryExhaustedError,
    default_backoff,
)
from hookproof.eino._run import EinoRun, ReplaceMessages
from hookproof.eino._streams import collect, concat_messages, partial_chunks, replay
from hookproof.errors import EinoError, UsageError, WillRetryError
from hookproof.messages import AssistantMessage, Message
from hookproof.requests import model_name

__all__ = ["failover", "retry"]


def _attempt(inner: Inner, call: ModelCall) -> tuple[Any, BaseException | None]:
    try:
        return inner(call), None
    except InterruptRaised:
        raise
    except Exception as error:  # noqa: BLE001 - the retry/failover policy decides
        return None, error


def failover(call: ModelCall, inner: Inner) -> Any:
    """The last model that succeeded in this run first, then get_failover_model's choices;
    an output should_failover rejects sends no event."""
    config = call.run.agent.model_failover_config
    assert config is not None
    model = call.run.last_success_model or call.model
    messages = call.messages
    result, error, output = None, None, None
    for attempt in range(config.max_retries + 1):
        if attempt:
            model, messages = _failover_model(config, call, attempt, messages, output, error)
            _record(call.run, "failover", {"attempt": attempt, "model": model_name(model)})
        result, error = _held_attempt(inner, call.but(model=model, messages=messages))
        if error is None:  # a success returns at once; should_failover judges failures
            call.run.last_success_model = model
            return _release(call, result)
        messages = call.run.persisted_input or messages  # a retry may have repaired it
        output = _partial_output(error)
        if not config.should_failover(call.ctx, output, error):
            raise error
    assert error is not None
    raise error


def _partial_output(error: BaseException) -> AssistantMessage | None:
    """The message a failed stream had produced so far (None for a plain error)."""
    chunks = [c for c in partial_chunks(error) if isinstance(c, AssistantMessage)]
    return concat_messages(tuple(chunks)) if chunks else None


def _held_attempt(inner: Inner, call: ModelCall) -> tuple[Any, BaseException | None]:
    """One attempt whose model-output event is held until the attempt is accepted."""
    events = call.run.exec
    events.hold_depth += 1
    events.held_event = None
    try:
        result, error = _attempt(inner, call)
    finally:
        events.hold_depth -= 1
    return (None, error) if error is not None else (_replayable(result, call), None)


def _release(call: ModelCall, result: Any) -> Any:
    """Send the accepted attempt's held event, unless an outer decider still holds it."""
    events = call.run.exec
    if events.hold_depth == 0 and events.held_event is not None:
        events.emit(events.held_event, owner="eino:event_sender")
        events.held_event = None
    return replay(result) if call.streaming else result


def _replayable(result: Any, call: ModelCall) -> Any:
    return tuple(collect(result, "the model stream")) if call.streaming else result


def _failover_model(
    config: Any,
    call: ModelCall,
    attempt: int,
    messages: tuple[Message, ...],
    output: AssistantMessage | None,
    error: BaseException | None,
) -> tuple[Any, tuple[Message, ...]]:
    context = FailoverContext(attempt, messages, output, error)
    choice = config.get_failover_model(call.ctx, context)
    model, replaced = choice if isinstance(choice, tuple) else (choice, None)
    if model is None:
        raise EinoError(f"failover GetFailoverModel returned nil model at attempt {attempt}")
    return model, messages if replaced is None else tuple(replaced)


def _record(run: EinoRun, hook: str, data: dict[str, Any]) -> None:
    if run.exec.handle is not None:
        run.exec.handle.record(hook, f"eino:{hook}", data)


def retry(call: ModelCall, inner: Inner) -> Any:
    config = call.run.agent.model_retry_config
    assert config is not None
    if config.should_retry is not None:
        return _retry_deciding(call, inner, config)
    retryable = config.is_retryable or (lambda _ctx, _error: True)
    last: BaseException | None = None
    for attempt in range(config.max_retries + 1):
        result, error = _held_attempt(inner, call)
        if error is None:
            return _release(call, result)
        if not retryable(call.ctx, error):
            raise error
        last = error
        _record(call.run, "retry", {"attempt": attempt + 1, "error": type(error).__name__})
        if attempt < config.max_retries:
            _sleep(call, config, attempt + 1, 0.0)
    raise RetryExhaustedError(last, config.max_retries) from last


def _retry_deciding(call: ModelCall, inner: Inner, config: Any) -> Any:
    """should_retry sees every result; a rejected output sends no event."""
    current, last = call, None
    for attempt in range(config.max_retries + 1):
        result, error = _held_attempt(inner, current)
        output = (
            _partial_output(error)
            if error is not None
            else message_of(result, call.streaming, "model")
        )
        context = RetryContext(attempt + 1, current.messages, current.options, output, error)
        decision = _decision(config.should_retry(call.ctx, context))
        if not decision.retry:
            if decision.rewrite_error is not None:
                raise decision.rewrite_error
            if error is not None:
                raise error
            return _release(call, result)
        last = error or EinoError(f"model output rejected by ShouldRetry at attempt {attempt + 1}")
        if call.streaming:
            _send_rejected(call, last, attempt, decision.reject_reason)
        _record(call.run, "retry", {"attempt": attempt + 1, "error": type(last).__name__})
        if attempt >= config.max_retries:
            break
        current = _apply_decision(current, decision)
        _sleep(call, config, attempt + 1, decision.backoff)
    raise RetryExhaustedError(last, config.max_retries) from last


def _send_rejected(call: ModelCall, rejection: BaseException, attempt: int, reason: Any) -> None:
    """In a streaming run Eino has sent the attempt's stream already; retry's verdict ends
    it in a WillRetryError instead of its end."""
    events = call.run.exec
    held, events.held_event = events.held_event, None
    if held is None:
        return
    ended = WillRetryError(str(rejection), retry_attempt=attempt, reject_reason=reason)
    ended.__cause__ = rejection
    events.emit(held.override(stream_error=ended), owner="eino:event_sender")


def _decision(value: Any) -> RetryDecision:
    if value is None:
        return RetryDecision()
    if not isinstance(value, RetryDecision):
        raise UsageError(
            f"hookproof: should_retry returned {type(value).__name__}; it returns a "
            "RetryDecision (e.g. RetryDecision(retry=True)) or None to accept the result. "
            "To decide on errors with a bool, use is_retryable= instead."
        )
    return value


def _apply_decision(call: ModelCall, decision: RetryDecision) -> ModelCall:
    if decision.modified_input_messages is not None:
        messages = tuple(decision.modified_input_messages)
        call = call.but(messages=messages)
        if decision.persist_modified_input_messages:
            call.run.persisted_input = messages
            assert call.run.exec.handle is not None
            call.run.exec.handle.update(
                {"messages": ReplaceMessages(messages)}, source="retry.persist_modified_input"
            )
    if decision.additional_options:
        call = call.but(options=FrozenDict({**call.options, **decision.additional_options}))
    return call


def _sleep(call: ModelCall, config: Any, attempt: int, chosen: float) -> None:
    clock = config.clock or call.run.agent.clock
    delay = chosen or (
        config.backoff_func(call.ctx, attempt)
        if config.backoff_func
        else default_backoff(attempt, clock)
    )
    if delay > 0:
        clock.sleep(delay)
