"""Taking one middleware out of the stack a factory really builds (check_tools_preserved's
baseline): while the factory runs, the framework's agent constructors (its Target's
``middleware_constructors``) are intercepted and called without that middleware, wherever
the factory, deepagents or the harness calls them.

A function is intercepted in place, so every reference to it reaches the interception; a
class through its ``__init__``. A factory that builds nothing while it runs (it returns an
agent built once, at import) cannot be rebuilt without the middleware: the middleware is
then found in no stack, which is an error, never a baseline that still has it.
"""

from __future__ import annotations

import contextlib
import inspect
import threading
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from hookproof.errors import InvalidInputError, UsageError
from hookproof.targets import Target

__all__ = ["Removed", "middleware_label", "without_middleware"]

_LOCK = threading.RLock()  # a patched module global is every thread's


def middleware_label(item: Any) -> str:
    """A middleware's name (LangChain's and hookproof's ``name``), else its class's."""
    name = getattr(item, "name", None)
    return name if isinstance(name, str) and name else type(item).__name__


@dataclass(frozen=True)
class Removed:
    """The factory without the middleware, as a target of the same framework, and what was
    taken out, by name."""

    target: Target
    labels: tuple[str, ...]


@dataclass(frozen=True)
class _Stack:
    labels: tuple[str, ...]  # every middleware the constructor was given
    picked: tuple[str, ...]  # the ones taken out


def without_middleware(target: Target, wanted: Any, check: str) -> Removed:
    """``target``'s factory building its agents without ``wanted`` (an instance: itself, or
    else middleware of exactly its class; a class: its instances; a name: middleware of that
    name or class name). One build is made now to check that every stack it builds holds
    ``wanted`` at most once and at least one holds it."""
    __tracebackhide__ = True
    constructors = target.middleware_constructors()
    if not constructors:
        raise UsageError(
            f"hookproof: {check} cannot take a middleware out of what a {type(target).__name__} "
            "factory builds (the target names no agent constructor to intercept). Pass a "
            "factory build(model, middleware) that places the list it is given in its stack."
        )
    removing = _Removing(target.build, _spots(constructors), _matcher(wanted))
    baseline = type(target)(removing, tiers=target.tiers)
    baseline.agent(baseline.models())
    return Removed(baseline, _validated(removing.stacks, wanted, check, constructors))


class _Removing:
    """The user's factory, called with the constructors intercepted; ``stacks`` holds the
    stacks its last build passed to them."""

    def __init__(self, build: Callable[[Any], Any], spots: list[_Spot], matcher: _Matcher):
        self.build, self.spots, self.matcher = build, spots, matcher
        self.stacks: list[_Stack] = []

    def __call__(self, model: Any) -> Any:
        stacks: list[_Stack] = []
        with _intercepted(self.spots, self.matcher, stacks):
            agent = self.build(model)
        self.stacks = stacks
        return agent


_Matcher = Callable[[Any, Sequence[Any]], bool]  # (middleware, its stack) -> take it out


def _matcher(wanted: Any) -> _Matcher:
    if isinstance(wanted, str):
        return lambda item, _: wanted in (middleware_label(item), type(item).__name__)
    if isinstance(wanted, type):
        return lambda item, _: isinstance(item, wanted)

    def same(item: Any, stack: Sequence[Any]) -> bool:
        if any(other is wanted for other in stack):
            return item is wanted
        return type(item) is type(wanted)

    return same


class _Spot:
    """Where one constructor is intercepted: a class through its ``__init__``; a function in
    place (its code swapped for a call to the check's stand-in while the factory builds), so
    every reference reaches it: a module's import, a closure's, a partial's."""

    def __init__(self, constructor: Callable[..., Any], parameter: str) -> None:
        self.parameter = parameter
        if isinstance(constructor, type):
            self.function: Any = constructor.__dict__["__init__"]
            self.original: Callable[..., Any] = self.function
        else:
            self.function = inspect.unwrap(constructor)
            self.original = _copy(self.function)
        self.owner = constructor if isinstance(constructor, type) else None
        self.signature = inspect.signature(self.original)
        self.global_name = f"__hookproof_without_{self.function.__name__}__"

    def install(self, stand_in: Callable[..., Any]) -> None:
        if self.owner is not None:
            setattr(self.owner, "__init__", stand_in)  # noqa: B010 - the class's own slot
            return
        self.function.__globals__[self.global_name] = stand_in
        self.function.__code__ = _TRAMPOLINE.replace(co_names=(self.global_name,))
        self.function.__defaults__ = self.function.__kwdefaults__ = None

    def restore(self) -> None:
        if self.owner is not None:
            setattr(self.owner, "__init__", self.original)  # noqa: B010
            return
        self.function.__code__ = self.original.__code__
        self.function.__defaults__ = self.original.__defaults__
        self.function.__kwdefaults__ = self.original.__kwdefaults__
        self.function.__globals__.pop(self.global_name, None)


def _copy(function: Any) -> Any:
    """A function of the same code, defaults and closure (it stays as it is while the
    original's code is swapped)."""
    copied = types.FunctionType(
        function.__code__,
        function.__globals__,
        function.__name__,
        function.__defaults__,
        function.__closure__,
    )
    copied.__kwdefaults__ = function.__kwdefaults__
    copied.__qualname__ = function.__qualname__
    return copied


def _stand_in(*args: Any, **kwargs: Any) -> Any:
    """Never called: its code, with the global it calls renamed, replaces a constructor's."""
    return _stand_in(*args, **kwargs)


_TRAMPOLINE = _stand_in.__code__


def _spots(constructors: Sequence[tuple[Callable[..., Any], str]]) -> list[_Spot]:
    return [_Spot(constructor, parameter) for constructor, parameter in constructors]


@contextlib.contextmanager
def _intercepted(spots: list[_Spot], matcher: _Matcher, stacks: list[_Stack]) -> Iterator[None]:
    with _LOCK:
        for spot in spots:
            spot.install(_without(spot, matcher, stacks))
        try:
            yield
        finally:
            for spot in spots:
                spot.restore()


def _without(spot: _Spot, matcher: _Matcher, stacks: list[_Stack]) -> Callable[..., Any]:
    def without(*args: Any, **kwargs: Any) -> Any:
        bound = spot.signature.bind(*args, **kwargs)
        stack = list(bound.arguments.get(spot.parameter) or ())
        picked = [item for item in stack if matcher(item, stack)]
        labels = tuple(middleware_label(item) for item in stack)
        stacks.append(_Stack(labels, tuple(middleware_label(item) for item in picked)))
        kept = [item for item in stack if not any(item is p for p in picked)]
        bound.arguments[spot.parameter] = kept
        return spot.original(*bound.args, **bound.kwargs)

    return without


def _validated(
    stacks: list[_Stack], wanted: Any, check: str, constructors: Sequence[tuple[Any, str]]
) -> tuple[str, ...]:
    __tracebackhide__ = True
    described = _described(wanted)
    if not stacks:
        names = [getattr(c, "__qualname__", repr(c)) for c, _ in constructors]
        raise UsageError(
            f"hookproof: {check} could not take {described} out: build(model) called none of "
            f"{names} while the check ran it (does it return an agent built once, at import?), "
            "so it cannot be rebuilt without it. Build the agent inside the factory, or pass a "
            "factory build(model, middleware)."
        )
    listed = "; ".join(f"[{', '.join(stack.labels)}]" for stack in stacks)
    if any(len(stack.picked) > 1 for stack in stacks):
        raise InvalidInputError(
            f"hookproof: {check}: {described} matches more than one middleware of a stack the "
            f"factory builds, so which one to take out is ambiguous. The stacks: {listed}. "
            "Pass the instance the factory uses, or a name only one middleware has."
        )
    picked = tuple(dict.fromkeys(label for stack in stacks for label in stack.picked))
    if not picked:
        raise InvalidInputError(
            f"hookproof: {check}: {described} is in no stack the factory builds, so there is "
            f"no baseline without it. The stacks: {listed}. Name a middleware of these (an "
            "instance, its class or its name)."
        )
    return picked


def _described(wanted: Any) -> str:
    if isinstance(wanted, str):
        return f"middleware {wanted!r}"
    if isinstance(wanted, type):
        return f"middleware of class {wanted.__name__}"
    return f"middleware {middleware_label(wanted)} ({type(wanted).__name__} instance)"
