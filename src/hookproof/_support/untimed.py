"""Keep hookproof's own run time out of hypothesis' per-example deadline.

A check that runs the user's factory and agent inside a ``@given`` example may take longer
than hypothesis' default 200 ms on a busy machine. That would fail the user's test on the
machine's speed. Hypothesis leaves out of the deadline the time an example spends drawing
and the time its stateful rules run (``ConjectureData._stateful_run_times``, subtracted
since hypothesis 6.104); hookproof books each check's run into that same ledger, so only the
user's own code counts against the deadline, in every phase (generate, shrink, final replay)
and under every profile, and no hypothesis setting changes.

Nothing here imports hypothesis: if it is not imported, no example can be running.
"""

from __future__ import annotations

import functools
import inspect
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar, cast

from hookproof.errors import UnsupportedHypothesisError

__all__ = ["untimed", "untimed_section"]

F = TypeVar("F", bound=Callable[..., Any])

_LEDGER = "_stateful_run_times"
_HYPOTHESIS_CONTROL = "hypothesis.control"
_FIRST_SUPPORTED = (6, 104)
_CONTEXT_VARIABLE = "_current_build_context"
_UNREAD = object()  # hypothesis keeps no build context where hookproof reads it
# The example whose time is being booked: nested checks (a check that calls another) book
# their time once, in the outermost section.
_booking: ContextVar[object | None] = ContextVar("hookproof_untimed_booking", default=None)


def untimed(function: F) -> F:
    """``function``'s run time, inside a hypothesis example, does not count against the
    example's deadline."""

    name = getattr(function, "__qualname__", repr(function))
    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True
            if _HYPOTHESIS_CONTROL not in sys.modules or _booked():  # nothing to book here
                return await function(*args, **kwargs)
            with untimed_section(name):
                return await function(*args, **kwargs)

        return cast(F, _marked(async_wrapper))

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        # an agent's hot path: no example runs, or an outer section books this time already
        if _HYPOTHESIS_CONTROL not in sys.modules or _booked():
            return function(*args, **kwargs)
        data = _running_example_data(name)
        if data is None or _booking.get() is data:
            return function(*args, **kwargs)
        return _booked_call(data, name, function, args, kwargs)

    return cast(F, _marked(wrapper))


def _booked_call(
    data: object, name: str, function: Callable[..., Any], args: Any, kwargs: Any
) -> Any:
    """``function(*args, **kwargs)`` with its run time booked into ``data``'s ledger:
    ``untimed_section`` without a generator's frames (a check's every call comes here)."""
    outer = _booking.get()
    _booking.set(data)
    start = time.perf_counter()
    try:
        return function(*args, **kwargs)
    finally:
        _book(data, name, time.perf_counter() - start)
        _booking.set(outer)  # not reset(token): an agent's coroutine may finish elsewhere


def _marked(wrapper: Callable[..., Any]) -> Callable[..., Any]:
    wrapper.__hookproof_untimed__ = True  # type: ignore[attr-defined]
    return wrapper


def _booked() -> bool:
    """Whether an outer section of the running example books this time already (a check's
    target run, the agent's build and its run, all inside the check's own section)."""
    booked = _booking.get()
    return booked is not None and getattr(booked, "frozen", True) is False


@contextmanager
def untimed_section(name: str) -> Iterator[None]:
    """The block's run time is left out of the running hypothesis example's deadline."""
    if _booked():
        yield  # inside an outer section of the running example, which books this time too
        return
    data = _running_example_data(name)
    if data is None or _booking.get() is data:
        yield
        return
    outer = _booking.get()
    _booking.set(data)
    start = time.perf_counter()
    try:
        yield
    finally:
        _book(data, name, time.perf_counter() - start)
        _booking.set(outer)  # not reset(token): an agent's coroutine may finish elsewhere


def _book(data: object, name: str, spent: float) -> None:
    ledger: dict[str, float] = getattr(data, _LEDGER)
    key = f"execute:hookproof:{name}"
    ledger[key] = ledger.get(key, 0.0) + spent


def _running_example_data(name: str) -> object | None:
    """The running example's data, or None outside a hypothesis example."""
    control = sys.modules.get(_HYPOTHESIS_CONTROL)
    if control is None:
        return None
    context = _build_context(control)
    if context is None:
        return None
    data: object = context.data
    if not _ledger_honoured(data):
        _refuse_if_deadline_counts(name)
        return None
    return data


def _build_context(control: Any) -> Any:
    """The running example's build context, or None outside an example. Hypothesis keeps it
    in a per-thread variable whose ``value`` is None outside an example: read directly, a plain
    test's check raises and catches no exception. A hypothesis that keeps it elsewhere is
    asked through its public accessor, which raises InvalidArgument outside an example."""
    variable = getattr(control, _CONTEXT_VARIABLE, None)
    context = getattr(variable, "value", _UNREAD)
    kind = getattr(control, "BuildContext", None)
    if context is None or (isinstance(kind, type) and isinstance(context, kind)):
        return context
    errors = sys.modules["hypothesis.errors"]  # hypothesis.control imports it
    try:
        return control.current_build_context()
    except errors.InvalidArgument:  # hypothesis' answer when no example is running
        return None


def _ledger_honoured(data: object) -> bool:
    version: tuple[int, ...] = sys.modules["hypothesis"].__version_info__  # imported: running
    return isinstance(getattr(data, _LEDGER, None), dict) and version >= _FIRST_SUPPORTED


def _refuse_if_deadline_counts(name: str) -> None:
    from hypothesis import __version__, settings

    deadline = settings.default.deadline if settings.default is not None else None
    if deadline is None:
        return
    raise UnsupportedHypothesisError(
        f"hookproof: {name} runs inside a hypothesis example with a deadline of {deadline}, "
        f"but hookproof cannot keep its run time out of that deadline with hypothesis "
        f"{__version__}. The example would then fail or pass depending on the machine's "
        f"speed. Install hypothesis>={'.'.join(map(str, _FIRST_SUPPORTED))} "
        "(`pip install -U hypothesis`), or set @settings(deadline=None) on this test."
    )
