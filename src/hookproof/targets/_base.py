"""The abstract Target: how a check builds a user's agent with injected models and runs it.

The user's side is a plain factory. ``build(model) -> agent`` receives one recording model;
with ``tiers=("fast", "reasoning")`` it receives a dict of them instead, which is how a
router that chooses among model tiers is checked. A Target turns that factory into runs that
report messages, the trace, the final requests and which models were called.

What differs between frameworks is a method or a class attribute here, never a test of a
class name: how to build and run, and which rules its tool answers follow. How a framework's
middleware hooks are called on sample requests (``HookSampler``) and how the conformance
probes author a tiny agent in it (``ConformanceKit``) are roles of their own.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

from hookproof._support.assembled import assembled
from hookproof._support.untimed import untimed
from hookproof.errors import UsageError
from hookproof.messages import Message
from hookproof.models import FinalRequest
from hookproof.targets.interrupts import OnInterrupt, check_on_interrupt
from hookproof.trace import Trace

__all__ = [
    "DEFAULT_INPUT",
    "Build",
    "IsolationRuns",
    "RunSettings",
    "RunWithTarget",
    "Target",
    "TargetRun",
]

DEFAULT_INPUT: Mapping[str, Any] = {"messages": [("user", "Please help with my request.")]}
Build = Callable[[Any], Any]


@dataclass(frozen=True)
class TargetRun:
    """One run's observable result. ``error`` is set (and the rest partial) when it raised.

    A run that paused at an interrupt was resumed with the check's ``on_interrupt`` answer
    ``interrupts_resumed`` times; ``paused`` says why it still stopped at one, if it did.
    """

    messages: tuple[Message, ...] = ()
    trace: Trace | None = None
    final_requests: tuple[FinalRequest, ...] = ()
    called: tuple[str, ...] = ()
    error: BaseException | None = None
    models: Mapping[str, Any] = field(default_factory=dict)
    interrupts_resumed: int = 0
    paused: str | None = None
    reached: tuple[str, ...] = ()  # the run's boundaries ("tool lookup", ...), when known

    @property
    def visible_tools(self) -> set[str]:
        """Every tool name some model call showed: a set of your own to change as you like."""
        return set(self._visible_tools)

    @cached_property
    def _visible_tools(self) -> frozenset[str]:
        # Made once: a check compares a test's cached baseline run with each example's.
        return frozenset([name for request in self.final_requests for name in request.tool_names])


@dataclass(frozen=True)
class RunSettings:
    """What one run is given besides its models: the runtime context, the input, the
    (checked) answer to interrupts and the run config."""

    context: Any
    input: Mapping[str, Any]
    on_interrupt: OnInterrupt
    config: Mapping[str, Any] | None


@dataclass(frozen=True)
class IsolationRuns:
    """How check_isolation makes one run of ONE shared agent: ``sync(context, probe)`` and,
    where the framework runs on asyncio, ``async_(context, probe)``; each returns the run
    (something with ``final_requests`` or ``error``) or the exception it raised. The probe's
    ``reached(label)`` / ``areached(label)`` must be called at every hook boundary."""

    sync: Callable[[Any, Any], Any]
    async_: Callable[[Any, Any], Awaitable[Any]] | None = None


class Target(ABC):
    """What checks need from a framework. Subclass it in one module and register it with
    ``hookproof.targets.register_target``; ``as_target`` then picks it for factories whose
    agents ``agent()`` accepts."""

    #: The framework's tool answers carry a status, so a refusal can say it failed.
    tool_answers_carry_status: ClassVar[bool] = True
    #: Words in a tool answer or error that mean "no tool of that name".
    unknown_tool_markers: ClassVar[tuple[str, ...]] = ("is not a valid tool",)
    #: Words in a build or run error that mean "a tool is shown that nothing executes".
    unexecutable_tool_markers: ClassVar[tuple[str, ...]] = ()
    #: Modules where the framework's tool classes keep their plumbing: code there is not a
    #: tool's own function (which checks watch to see that a tool really ran).
    tool_library_modules: ClassVar[tuple[str, ...]] = ("pydantic",)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _untime_runs(cls)

    def __init__(self, build: Build, *, tiers: Sequence[str] | None = None) -> None:
        if not callable(build):
            raise UsageError(
                f"hookproof: a contract takes a factory build(model) -> agent, got "
                f"{type(build).__name__}."
            )
        self.build = build
        self.tiers = tuple(tiers) if tiers else None

    # -- building and running ----------------------------------------------------------

    @abstractmethod
    def models(self, script: Any = None) -> dict[str, Any]:
        """Fresh recording models, one per tier (or one named "model"), playing ``script``."""

    def falsy_models(self) -> dict[str, Any]:
        """Valid recording models whose truth value is False (a careless ``model or x``)."""
        raise _unsupported(type(self), "falsy_models")

    @abstractmethod
    def agent(self, models: Mapping[str, Any]) -> Any:
        """The factory's agent built with ``models``; raises UsageError when it is not an
        agent this target runs (that is how ``as_target`` tells frameworks apart)."""

    def accepts(self, agent: Any) -> bool:
        """Whether ``agent`` (what the factory built) is one this target runs; ``agent()``
        may refuse by raising instead, with a message that says what it expected."""
        return True

    @abstractmethod
    def run(
        self,
        *,
        context: Any = None,
        script: Any = None,
        input: Mapping[str, Any] | None = None,
        models: Mapping[str, Any] | None = None,
        on_interrupt: OnInterrupt = "approve",
        config: Mapping[str, Any] | None = None,
    ) -> TargetRun:
        """One run, resuming every interrupt with ``on_interrupt``'s answer; a crash is
        reported in ``TargetRun.error``, not raised (``RunWithTarget`` does the common part)."""

    @abstractmethod
    def tool_schemas(self) -> Mapping[str, Mapping[str, Any]]:
        """The parameter schema of each tool the built agent can execute, by name."""

    def isolation_runs(
        self, script: Any, input: Mapping[str, Any], config: Mapping[str, Any] | None
    ) -> IsolationRuns:
        """Runs of one agent built once with models playing ``script`` (a function)."""
        raise _unsupported(type(self), "isolation_runs")

    def tool_objects(self) -> Mapping[str, list[Any]]:
        """The executable tools of the built agent, by name (to see a tool's function run)."""
        return {}

    def bridged_target(self) -> Target | None:
        """The same factory run on the reference engine, its framework code unchanged
        through the framework's bridge (faster; checks confirm its verdicts on this target),
        or None when the framework has no such bridge."""
        return None

    def middleware_constructors(self) -> Sequence[tuple[Callable[..., Any], str]]:
        """The functions (or classes) that build this framework's agents from a list of
        middleware, each with the name of that parameter: a check takes one middleware out
        of what a factory builds by intercepting them while it builds ([]: it cannot)."""
        return []

    def registered_tool_names(self) -> list[list[str]]:
        """The tool names each agent the factory builds registers, duplicates kept, when the
        framework silently keeps one tool per name ([] when it refuses duplicates itself)."""
        return []


def _untime_runs(cls: type) -> None:
    """A target runs the user's agent for a check, often inside a ``@given`` example: that run
    time is hookproof's, so it stays out of hypothesis' deadline (see
    hookproof._support.untimed)."""
    for name in ("run", "run_with"):
        member = cls.__dict__.get(name)
        if callable(member):
            setattr(cls, name, untimed(member))


def _unsupported(owner: type, what: str) -> NotImplementedError:
    return NotImplementedError(
        f"hookproof: the {owner.__name__} target does not implement {what}(), so this check or "
        f"probe cannot run on it. Implement {owner.__name__}.{what} to support it."
    )


class RunWithTarget(Target):
    """A Target whose ``run`` checks the answer to interrupts, makes fresh models unless it is
    given some, and hands them to ``run_with``: what every built-in target shares."""

    def run(
        self,
        *,
        context: Any = None,
        script: Any = None,
        input: Mapping[str, Any] | None = None,
        models: Mapping[str, Any] | None = None,
        on_interrupt: OnInterrupt = "approve",
        config: Mapping[str, Any] | None = None,
    ) -> TargetRun:
        answer = check_on_interrupt(on_interrupt)
        chosen = dict(models) if models is not None else self.models(script)
        settings = assembled(
            RunSettings,
            context=context,
            input=input or DEFAULT_INPUT,
            on_interrupt=answer,
            config=config,
        )
        return self.run_with(chosen, settings)

    @abstractmethod
    def run_with(self, models: dict[str, Any], settings: RunSettings) -> TargetRun:
        """One run of the agent built with ``models``."""
