"""Targets: how a check builds a user's agent with injected models and runs it.

The user's side is a plain factory. ``build(model) -> agent`` receives one RecordingModel;
with ``tiers=("fast", "reasoning")`` it receives a dict of them instead, which is how a
router that chooses among model tiers is checked. A Target turns that factory into runs
that report messages, the trace, the final requests and which models were called.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from hookproof._engine.probe import PROBE
from hookproof.contracts._interrupts import (
    OnInterrupt,
    check_config,
    check_on_interrupt,
    resume_loop,
    resume_value,
    thread_id,
)
from hookproof.errors import UsageError
from hookproof.messages import Message
from hookproof.models import FinalRequest, RecordingModel, ScriptedModel
from hookproof.runtime import Agent, Command, InMemoryCheckpointer
from hookproof.trace import Trace, TraceEvent

__all__ = ["DEFAULT_INPUT", "EinoTarget", "ReferenceTarget", "Target", "TargetRun", "as_target"]

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
    models: Mapping[str, RecordingModel] = field(default_factory=dict)
    interrupts_resumed: int = 0
    paused: str | None = None
    reached: tuple[str, ...] = ()  # the run's boundaries ("tool lookup", ...), when known

    @property
    def visible_tools(self) -> set[str]:
        return {name for request in self.final_requests for name in request.tool_names}


@runtime_checkable
class Target(Protocol):
    """What checks need from a framework: build with injected models, run (resuming every
    interrupt with ``on_interrupt``'s answer), report."""

    def run(
        self,
        *,
        context: Any = None,
        script: Any = None,
        input: Mapping[str, Any] | None = None,
        on_interrupt: OnInterrupt = "approve",
        config: Mapping[str, Any] | None = None,
    ) -> TargetRun: ...

    def tool_schemas(self) -> Mapping[str, Mapping[str, Any]]: ...


def call_once_then_done(turn: Any) -> Callable[[FinalRequest], Any]:
    """A stateless script: the given turn while no tool has answered, then a final answer."""

    def script(request: FinalRequest) -> Any:
        answered = any(message.role == "tool" for message in request.messages)
        return "done" if answered else turn

    return script


class ReferenceTarget:
    """Runs a factory whose agents are hookproof runtime (or harness) agents."""

    def __init__(self, build: Build, *, tiers: Sequence[str] | None = None) -> None:
        if not callable(build):
            raise UsageError(
                f"hookproof: a contract takes a factory build(model) -> agent, got "
                f"{type(build).__name__}."
            )
        self.build = build
        self.tiers = tuple(tiers) if tiers else None

    def models(self, script: Any = None) -> dict[str, RecordingModel]:
        names = self.tiers or ("model",)
        turns = script if script is not None else ["done"]
        if callable(turns):
            return {n: RecordingModel(ScriptedModel(turns, name=n)) for n in names}
        return {n: RecordingModel(ScriptedModel(list(turns), name=n)) for n in names}

    def agent(self, models: Mapping[str, Any]) -> Agent:
        agent = self.build(dict(models) if self.tiers else models["model"])
        if not isinstance(agent, Agent):
            raise UsageError(
                f"hookproof: the factory returned {type(agent).__name__}, which the reference "
                "target cannot run. Return an agent from hookproof.runtime.create_agent or "
                "hookproof.harness.create_deep_agent (LangChain agents need the LangChain "
                "adapter's target)."
            )
        return agent

    def tool_schemas(self) -> Mapping[str, Mapping[str, Any]]:
        agent = self.agent(self.models())
        return {tool.name: tool.parameters for tool in agent.tools}

    def tool_objects(self) -> Mapping[str, list[Any]]:
        """The executable tools of the agent the factory builds, by name."""
        found: dict[str, list[Any]] = {}
        for item in self.agent(self.models()).tools:
            found.setdefault(_tool_name(item), []).append(item)
        return found

    def run(
        self,
        *,
        context: Any = None,
        script: Any = None,
        input: Mapping[str, Any] | None = None,
        models: Mapping[str, RecordingModel] | None = None,
        on_interrupt: OnInterrupt = "approve",
        config: Mapping[str, Any] | None = None,
    ) -> TargetRun:
        answer = check_on_interrupt(on_interrupt)
        check_config(config, "a check on a hookproof runtime agent")
        models = dict(models) if models is not None else self.models(script)
        agent, thread = resumable(self.agent(models)), thread_id(config)
        parts: list[Any]
        probe, parts = _Reached(), []
        token = PROBE.set(probe)
        try:
            paused = resume_loop(
                lambda: agent.invoke(
                    dict(input or DEFAULT_INPUT), context=context, thread_id=thread
                ),
                lambda last: agent.invoke(
                    Command(resume=resume_value(last.interrupts[0].value, answer)),
                    context=context,
                    thread_id=thread,
                ),
                lambda last: [pending.value for pending in last.interrupts],
                answer,
                parts,
            )
        except Exception as error:  # noqa: BLE001 - a crash is an observation the check judges
            return TargetRun(
                final_requests=tuple(r for m in models.values() for r in m.requests),
                called=_called(models),
                error=error,
                models=models,
                interrupts_resumed=len(parts),
                reached=tuple(probe.labels),
            )
        finally:
            PROBE.reset(token)
        return TargetRun(
            messages=parts[-1].messages,
            trace=joined([part.trace for part in parts]),
            final_requests=tuple(r for part in parts for r in part.final_requests),
            called=_called(models),
            models=models,
            interrupts_resumed=len(parts) - 1,
            paused=paused,
            reached=tuple(probe.labels),
        )


class _Reached:
    """A probe that only notes each boundary a run reaches (kept when the run raises)."""

    def __init__(self) -> None:
        self.labels: list[str] = []

    def reached(self, label: str) -> None:
        self.labels.append(label)

    async def areached(self, label: str) -> None:
        self.labels.append(label)


def resumable(agent: Any) -> Any:
    """The agent with a checkpointer of its own when it has none, so an interrupt pauses the
    run instead of failing it and the check can answer it."""
    if agent.checkpointer is not None:
        return agent
    return agent.with_checkpointer(InMemoryCheckpointer())


def joined(traces: Sequence[Trace]) -> Trace:
    """One trace of a run and its resumes, numbered through."""
    events = [event for trace in traces for event in trace]
    return Trace(
        tuple(
            TraceEvent(seq, e.kind, e.hook, e.phase, e.middleware, e.depth, e.data)
            for seq, e in enumerate(events)
        )
    )


class EinoTarget(ReferenceTarget):
    """Runs a factory whose agents are Eino-dialect ChatModelAgents. A check's context is
    the run's ctx: a RunContext, a dict of its values, or None."""

    def agent(self, models: Mapping[str, Any]) -> Any:
        from hookproof.eino import ChatModelAgent

        agent = self.build(dict(models) if self.tiers else models["model"])
        if not isinstance(agent, ChatModelAgent):
            raise UsageError(
                f"hookproof: the factory returned {type(agent).__name__}, not a "
                "hookproof.eino.ChatModelAgent."
            )
        return agent

    def tool_schemas(self) -> Mapping[str, Mapping[str, Any]]:
        from hookproof.eino._tools import info_of

        infos = [info_of(item) for item in self.agent(self.models()).tools]
        return {info.name: info.parameters for info in infos}

    def run(
        self,
        *,
        context: Any = None,
        script: Any = None,
        input: Mapping[str, Any] | None = None,
        models: Mapping[str, RecordingModel] | None = None,
        on_interrupt: OnInterrupt = "approve",
        config: Mapping[str, Any] | None = None,
    ) -> TargetRun:
        answer = check_on_interrupt(on_interrupt)
        check_config(config, "a check on an Eino-dialect agent")
        models = dict(models) if models is not None else self.models(script)
        agent, ctx = resumable(self.agent(models)), eino_ctx(context)
        checkpoint = thread_id(config)
        runs: list[Any] = []
        paused = resume_loop(
            lambda: agent.run(eino_input(input), ctx, checkpoint_id=checkpoint),
            lambda last: agent.resume(
                checkpoint, resume_value(last.result.interrupts[0].value, answer), ctx
            ),
            _eino_pending,
            answer,
            runs,
        )
        last = runs[-1]
        return TargetRun(
            messages=last.messages,
            trace=joined([run.trace for run in runs]),
            final_requests=tuple(r for run in runs for r in run.final_requests),
            called=_called(models),
            error=last.error,
            models=models,
            interrupts_resumed=len(runs) - 1,
            paused=paused,
        )


def _eino_pending(run: Any) -> list[Any]:
    if not run.interrupted or run.error is not None:
        return []
    return [pending.value for pending in run.result.interrupts]


def _tool_name(tool: Any) -> str:
    name = getattr(tool, "name", None)
    if name is None and callable(getattr(tool, "info", None)):
        name = tool.info().name
    return str(name)


def eino_input(input: Mapping[str, Any] | None) -> Any:
    return list((input or DEFAULT_INPUT)["messages"])


def eino_ctx(context: Any) -> Any:
    from hookproof.eino import RunContext

    if context is None or isinstance(context, RunContext):
        return context
    if isinstance(context, Mapping):
        return RunContext(context)
    raise UsageError(
        f"hookproof: a contract on an Eino agent takes its context as the run's ctx: a "
        f"RunContext, a dict of its values, or None; got {type(context).__name__}."
    )


def _called(models: Mapping[str, RecordingModel]) -> tuple[str, ...]:
    return tuple(name for name, model in models.items() if model.requests)


def as_target(build: Build | Target, tiers: Sequence[str] | None = None) -> Target:
    """The Target for a factory (or the Target itself): the reference runtime's, or the
    LangChain adapter's when the factory builds LangChain or deepagents graphs."""
    if not callable(build) or isinstance(build, ReferenceTarget):
        return build
    reference = ReferenceTarget(build, tiers=tiers)
    try:
        reference.agent(reference.models())
    except Exception as reference_error:  # noqa: BLE001 - any refusal means: try the others
        eino = EinoTarget(build, tiers=tiers)
        try:
            eino.agent(eino.models())
        except Exception:  # noqa: BLE001 - not an Eino agent either: try LangChain
            return _langchain_target(build, tiers, reference_error)
        return eino
    return reference


def _langchain_target(build: Build, tiers: Sequence[str] | None, first: Exception) -> Target:
    """The LangChain target, or the build error that shows what went wrong: when both
    attempts fail, the LangChain build's own error is the informative one."""
    import importlib.util

    if importlib.util.find_spec("langchain_core") is None:
        raise first
    from hookproof.adapters.langchain import LangChainTarget

    target = LangChainTarget(build, tiers=tiers)
    try:
        agent = target.agent(target.models())
    except Exception as error:
        raise error from first
    if not callable(getattr(agent, "invoke", None)):
        raise first
    return target
