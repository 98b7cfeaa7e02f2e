"""Model retry and failover configuration, and the clock their backoff sleeps on."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from hookproof.eino._context import RunContext
from hookproof.errors import ExceedMaxRetriesError, RetryExhaustedError, UsageError
from hookproof.messages import AssistantMessage, Message

__all__ = [
    "Clock",
    "ExceedMaxRetriesError",
    "FailoverContext",
    "ManualClock",
    "ModelFailoverConfig",
    "ModelRetryConfig",
    "RetryContext",
    "RetryDecision",
    "RetryExhaustedError",
    "SystemClock",
    "default_backoff",
]


class Clock(Protocol):
    """Where backoff sleeps and draws its jitter; inject ManualClock so tests never sleep."""

    def sleep(self, seconds: float) -> None: ...

    def random(self) -> float: ...


class SystemClock:
    """The real clock: time.sleep and random jitter."""

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def random(self) -> float:
        return random.random()


@dataclass
class ManualClock:
    """A clock for tests: records each sleep instead of sleeping; jitter is ``jitter``
    (a fraction in [0, 1), 0 by default) so delays are exact."""

    jitter: float = 0.0
    sleeps: list[float] = field(default_factory=list)
    now: float = 0.0

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def random(self) -> float:
        return self.jitter


def default_backoff(attempt: int, clock: Clock) -> float:
    """Eino's default: 100 ms doubling per attempt, capped at 10 s, plus up to half again as
    jitter; past the 7th attempt 10 s plus up to 5 s."""
    base, cap = 0.1, 10.0
    if attempt <= 0:
        return base
    if attempt > 7:
        return float(cap + clock.random() * cap / 2)
    delay = min(base * 2 ** (attempt - 1), cap)
    return float(delay + clock.random() * delay / 2)


@dataclass(frozen=True)
class RetryContext:
    """What should_retry sees about one attempt (``retry_attempt`` counts from 1)."""

    retry_attempt: int
    input_messages: tuple[Message, ...]
    options: Any
    output_message: AssistantMessage | None
    error: BaseException | None


@dataclass(frozen=True)
class RetryDecision:
    """should_retry's answer. Not retrying accepts the result unless ``rewrite_error`` is set;
    retrying may change the input (``persist_modified_input_messages`` writes it to the
    agent's messages), add model options, or choose its own ``backoff`` in seconds (0, the
    default, means the config's backoff, as in Eino)."""

    retry: bool = False
    rewrite_error: BaseException | None = None
    modified_input_messages: Sequence[Message] | None = None
    persist_modified_input_messages: bool = False
    additional_options: dict[str, Any] | None = None
    backoff: float = 0.0
    reject_reason: Any = None


@dataclass(frozen=True)
class ModelRetryConfig:
    """Retry the model call: ``max_retries`` extra attempts (3 means up to 4 calls).

    ``should_retry(ctx, RetryContext) -> RetryDecision | None`` decides on every result (None
    accepts it); without it, ``is_retryable(ctx, error)`` (default: any error) decides on
    errors only. ``backoff_func(ctx, attempt) -> seconds`` replaces the default backoff.
    ``clock``, when set, is where this config's backoff sleeps (else the agent's clock).
    """

    max_retries: int = 0
    should_retry: Callable[[RunContext, RetryContext], RetryDecision | None] | None = None
    is_retryable: Callable[[RunContext, BaseException], bool] | None = None
    backoff_func: Callable[[RunContext, int], float] | None = None
    clock: Clock | None = None

    def __post_init__(self) -> None:
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int):
            raise UsageError(
                f"hookproof: ModelRetryConfig.max_retries must be an int, got {self.max_retries!r}."
            )
        if self.max_retries < 0:
            raise UsageError("hookproof: ModelRetryConfig.max_retries cannot be negative.")


@dataclass(frozen=True)
class FailoverContext:
    """What get_failover_model sees (``failover_attempt`` counts from 1)."""

    failover_attempt: int
    input_messages: tuple[Message, ...]
    last_output_message: AssistantMessage | None
    last_error: BaseException | None

    @property
    def last_err(self) -> BaseException | None:
        """Eino's name for ``last_error``."""
        return self.last_error


@dataclass(frozen=True)
class ModelFailoverConfig:
    """Switch models on failure: after the last model that succeeded in this run,
    ``get_failover_model(ctx, FailoverContext)`` gives up to ``max_retries`` others. It returns
    a model, or ``(model, messages)`` to also replace the input. A success returns at once;
    ``should_failover(ctx, output, error)`` says whether a failure calls for another model
    (``output`` is what a failed stream produced before the error, else None)."""

    max_retries: int
    should_failover: Callable[[RunContext, AssistantMessage | None, BaseException | None], bool]
    get_failover_model: Callable[[RunContext, FailoverContext], Any]

    def __post_init__(self) -> None:
        if self.should_failover is None or self.get_failover_model is None:
            raise UsageError(
                "hookproof: ModelFailoverConfig needs both should_failover and get_failover_model."
            )
        retries = self.max_retries
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise UsageError(
                f"hookproof: ModelFailoverConfig.max_retries must be an int >= 0 (how many "
                f"other models to try), got {retries!r}."
            )
