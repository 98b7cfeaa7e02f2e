"""check_bounded_retry: a wrap hook retries only retryable errors, a bounded number of times."""

from __future__ import annotations

from typing import Any

from hookproof._support.untimed import untimed
from hookproof.contracts import _middleware_hooks as hooks
from hookproof.contracts._report import CheckReport, Exercise
from hookproof.targets import hook_sampler

__all__ = ["check_bounded_retry"]


class _Budget(BaseException):
    """Raised by the probe handler to stop a retry loop that does not stop by itself; a
    BaseException, so `except Exception` in the hook under test cannot swallow it."""


def _count_calls(
    middleware: object, sample: Any, error: BaseException, cap: int
) -> tuple[int, BaseException | None]:
    calls = 0

    def handler(_request: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls > cap:
            raise _Budget()
        raise error

    outcome: BaseException | None = None
    try:
        hooks.hook_of(middleware, "wrap_model_call")(sample, handler)  # type: ignore[misc]
    except _Budget:
        outcome = _Budget()
    except Exception as raised:  # noqa: BLE001 - whatever escapes is what we judge
        outcome = raised
    return calls, outcome


@untimed
def check_bounded_retry(
    middleware: object,
    *,
    max_attempts: int = 5,
    retryable: tuple[type[BaseException], ...] = (ConnectionError, TimeoutError),
    not_retryable: tuple[BaseException, ...] = (
        PermissionError("denied"),
        ValueError("bad schema"),
    ),
    context: Any = None,
    allow_untested: bool = False,
) -> CheckReport:
    """A wrap hook that re-calls its handler does so at most ``max_attempts`` times, only for
    retryable errors, and lets the last error through instead of inventing a success. A
    middleware without wrap_model_call, or one that never calls its handler, is not a pass."""
    __tracebackhide__ = True
    exercise = Exercise("check_bounded_retry", allow_untested=allow_untested)
    hooks.nothing_to_check(middleware, exercise, ("wrap_model_call",))
    sample = _model_request_for(middleware, context)
    found = _retry_problems(middleware, exercise, sample, max_attempts, retryable, not_retryable)
    promise = hooks.Promise(
        invariant=f"retry only {[t.__name__ for t in retryable]}, at most {max_attempts} "
        "attempts, then raise",
        fix="catch only the retryable exception types, count attempts, and re-raise the last "
        "error when the budget is spent",
        to_exercise="pass the middleware that retries; its wrap_model_call must call its "
        "handler for the sample request",
    )
    return hooks.verdict(
        exercise,
        middleware,
        promise,
        found,
        f"middleware {hooks.name_of(middleware)!r} with a handler that always fails",
        replay_args=f", max_attempts={max_attempts}{hooks.context_arg(context)}",
    )


def _retry_problems(
    middleware: object,
    exercise: Exercise,
    sample: Any,
    max_attempts: int,
    retryable: tuple[type[BaseException], ...],
    not_retryable: tuple[BaseException, ...],
) -> list[str]:
    if hooks.hook_of(middleware, "wrap_model_call") is None:
        return []
    exercise.hook(f"{hooks.name_of(middleware)}.wrap_model_call")
    found: list[str] = []
    error = retryable[0]("transient failure")
    calls, outcome = _count_calls(middleware, sample, error, cap=max_attempts * 10)
    if calls == 0 and outcome is not None and not isinstance(outcome, type(error)):
        hooks.raised_on_sample(exercise, "wrap_model_call", outcome, "request")  # type: ignore[arg-type]
        return found
    if calls == 0:
        exercise.not_tried(
            "wrap_model_call never called its handler on the sample request, so no retry "
            "could be observed"
        )
        return found
    if isinstance(outcome, _Budget):
        found.append(
            f"a {type(error).__name__} was retried more than {max_attempts * 10} times (no bound)"
        )
    elif calls > max_attempts:
        found.append(f"a {type(error).__name__} was retried {calls} times (bound {max_attempts})")
    elif outcome is None:
        found.append(
            f"after {calls} failing attempt(s) the hook returned a result instead of raising"
        )
    for permanent in not_retryable:
        calls, outcome = _count_calls(middleware, sample, permanent, cap=max_attempts * 10)
        if calls > 1:
            found.append(f"a {type(permanent).__name__} (not retryable) was tried {calls} times")
        if outcome is None:
            found.append(f"a {type(permanent).__name__} was swallowed: the hook returned a result")
    return found


def _model_request_for(middleware: object, context: Any = None) -> Any:
    return hook_sampler(middleware).sample_model_request(context=context)
