"""The abstract Target: how a check builds a user's agent with injected models and runs it.

The user's side is a plain factory. ``build(model) -> agent`` receives one recording model;
with ``tiers=("fast", "reasoning")`` it receives a dict of them instead, which is how a
router that chooses among model tiers is checked. A Target turns that factory into runs that
report messages, the trace, the final requests and which models were called.

What differs between frameworks is a method or a class attribute here, never a test of a
class name: how to build and run, which rules its tool answers follow, how its middleware
hooks are called on sample requests, and how conformance probes author a tiny agent in it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from hookproof._untimed import untimed
from hookproof.errors import UsageError
from hookproof.messages import Message
from hookproof.models import FinalRequest
from hookproof.trace import Trace

if TYPE_CHECKING:
    from hookproof.targets.interrupts import OnInterrupt
    from hookproof.targets.samples import NodeSamples, PassedOn

__all__ = ["DEFAULT_INPUT", "Build", "IsolationRuns", "Target", "TargetRun"]

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
        return {name for request in self.final_requests for name in request.tool_names}


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
    #: The framework is a deep-agent harness with profiles (see ``harness_profiles``).
    has_harness_profiles: ClassVar[bool] = False

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
        reported in ``TargetRun.error``, not raised."""

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

    def registered_tool_names(self) -> list[list[str]]:
        """The tool names each agent the factory builds registers, duplicates kept, when the
        framework silently keeps one tool per name ([] when it refuses duplicates itself)."""
        return []

    # -- one middleware's hooks, called on sample requests -------------------------------

    @classmethod
    def wrap_hook(cls, middleware: object, name: str) -> Callable[[Any, Any], Any] | None:
        """The middleware's own wrap hook ``name`` as a plain ``(request, handler)`` call."""
        raise _unsupported(cls, "wrap_hook")

    @classmethod
    def node_samples(cls, context: Any = None) -> NodeSamples:
        """What this framework's node hooks are run on, with ``context`` in their runtime."""
        raise _unsupported(cls, "node_samples")

    @classmethod
    def sample_model_request(cls, context: Any = None) -> Any:
        """A rich model request of this framework (messages of every role, tools, state)."""
        raise _unsupported(cls, "sample_model_request")

    @classmethod
    def sample_tool_request(cls, context: Any = None) -> Any:
        """A tool-call request of this framework for one sample_search call."""
        raise _unsupported(cls, "sample_tool_request")

    @classmethod
    def mutation_findings(
        cls, middleware: object, request: Any = None, context: Any = None
    ) -> list[str] | None:
        """In-place changes the wrap hooks make, found the framework's own way; None lets
        the check compare deep copies of the sample requests itself."""
        return None

    @classmethod
    def passed_on(
        cls, middleware: object, system_message: Any = None, context: Any = None
    ) -> PassedOn | None:
        """What the middleware's wrap_model_call passes on for a sample request, as hookproof
        messages (None: it never called its handler)."""
        raise _unsupported(cls, "passed_on")

    # -- authoring a tiny agent (the conformance probes) -------------------------------

    @classmethod
    def create_agent(
        cls, model: Any, tools: Sequence[Any] = (), middleware: Sequence[Any] = ()
    ) -> Any:
        """An agent of this framework."""
        raise _unsupported(cls, "create_agent")

    @classmethod
    def tool(cls, function: Callable[..., Any]) -> Any:
        """A tool of this framework from a typed, documented function."""
        raise _unsupported(cls, "tool")

    @classmethod
    def scripted_model(
        cls, *turns: Any, name: str = "scripted", provider: str | None = None
    ) -> Any:
        """A model of this framework playing ``turns``, recording what it receives
        (``.last`` is a FinalRequest)."""
        raise _unsupported(cls, "scripted_model")

    @classmethod
    def wrap_model_layer(cls, name: str, wrap: Callable[[Any, Any], Any]) -> Any:
        """A middleware named ``name`` whose wrap_model_call is ``wrap(request, handler)``."""
        raise _unsupported(cls, "wrap_model_layer")

    @classmethod
    def after_model_hook(cls, name: str, hook: Callable[[Any, Any], Any]) -> Any:
        """A middleware named ``name`` whose after_model hook is ``hook(state, runtime)``."""
        raise _unsupported(cls, "after_model_hook")

    @classmethod
    def invoke(cls, agent: Any, input: Mapping[str, Any]) -> list[Message]:
        """Invoke the agent once; its final messages as hookproof messages."""
        raise _unsupported(cls, "invoke")

    @classmethod
    async def ainvoke(cls, agent: Any, input: Mapping[str, Any]) -> list[Message]:
        """The same, through the framework's asynchronous entry point."""
        raise _unsupported(cls, "ainvoke")

    @classmethod
    @contextmanager
    def harness_profiles(cls) -> Iterator[Callable[..., None]]:
        """For deep-agent harnesses: a scope in which ``register(key, **profile_fields)``
        registers a harness profile. Plain agents have none."""
        raise _unsupported(cls, "harness_profiles")
        yield  # pragma: no cover - a generator, so the decorator accepts it


_RUNS = ("run", "invoke", "ainvoke")


def _untime_runs(cls: type) -> None:
    """A target runs the user's agent for a check, often inside a ``@given`` example: that run
    time is hookproof's, so it stays out of hypothesis' deadline (see hookproof._untimed)."""
    for name in _RUNS:
        member = cls.__dict__.get(name)
        if isinstance(member, classmethod):
            setattr(cls, name, classmethod(untimed(member.__func__)))
        elif callable(member):
            setattr(cls, name, untimed(member))


def _unsupported(cls: type, what: str) -> NotImplementedError:
    return NotImplementedError(
        f"hookproof: the {cls.__name__} target does not implement {what}(), so this check or "
        f"probe cannot run on it. Implement {cls.__name__}.{what} to support it."
    )
