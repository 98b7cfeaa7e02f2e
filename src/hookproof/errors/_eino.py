"""Errors of the Eino dialect (reported in its event stream) and of its Go toolchain."""

from __future__ import annotations

from hookproof.errors._base import HookproofError, InvalidInputError, UsageError

# -- the Eino dialect -----------------------------------------------------------------------


class EinoError(HookproofError):
    """Base of the errors the Eino dialect reports in its event stream."""


class ExceedMaxIterationsError(EinoError):
    """The model was about to be called more than max_iterations times (Eino:
    ErrExceedMaxIterations)."""


class HandlerError(EinoError):
    """A handler's before_agent or after_agent failed; ``index`` and ``handler`` name it."""

    def __init__(self, message: str, *, index: int, handler: object) -> None:
        super().__init__(message)
        self.index = index
        self.handler = handler


class ToolCallError(EinoError):
    """A tool call failed inside the tool-call chain; the cause is ``__cause__``."""

    def __init__(self, message: str, *, name: str, call_id: str) -> None:
        super().__init__(message)
        self.name = name
        self.call_id = call_id


class ToolNotFoundError(EinoError):
    """The model called a tool this run does not have, and no unknown_tools_handler is set."""


class RunContextError(EinoError, UsageError):
    """A run-only function was called outside a run (or where the run's state is missing)."""


class SerializationError(EinoError, InvalidInputError):
    """A value cannot be saved in a checkpoint."""


class GoToolchainError(HookproofError):
    """A Go program hookproof needs (e.g. the real-Eino runner of ``hookproof conformance
    --target eino``) could not be built or run: Go is missing, or the build failed."""


class ExceedMaxRetriesError(EinoError):
    """Every retry was used (Eino: ErrExceedMaxRetries); see RetryExhaustedError."""


class RetryExhaustedError(ExceedMaxRetriesError):
    """All attempts failed: ``last_error`` is the last one, ``total_retries`` the budget."""

    def __init__(self, last_error: BaseException | None, total_retries: int) -> None:
        text = "exceeds max retries"
        super().__init__(f"{text}: last error: {last_error}" if last_error else text)
        self.last_error = last_error
        self.total_retries = total_retries

    @property
    def last_err(self) -> BaseException | None:
        """Eino's name for ``last_error``."""
        return self.last_error


class WillRetryError(EinoError):
    """What the stream of a model attempt that retry rejected ends in, in a streaming run
    (Eino's WillRetryError): the attempt's event was sent, and another attempt follows.
    ``retry_attempt`` counts from 0; ``reject_reason`` is the RetryDecision's; the rejection
    (or the stream's error) is ``__cause__``."""

    def __init__(self, message: str, *, retry_attempt: int, reject_reason: object = None) -> None:
        super().__init__(message)
        self.retry_attempt = retry_attempt
        self.reject_reason = reject_reason
