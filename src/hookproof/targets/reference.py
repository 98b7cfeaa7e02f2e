"""The reference target: factories whose agents are hookproof runtime (or harness) agents."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar

from hookproof._engine.probe import PROBE
from hookproof.errors import UsageError
from hookproof.messages import AssistantMessage, Message
from hookproof.models import RecordingModel, ScriptedModel
from hookproof.runtime import (
    Agent,
    Command,
    InMemoryCheckpointer,
    ModelRequest,
    ModelResponse,
    Runtime,
    after_model,
    create_agent,
    tool,
    wrap_model_call,
)
from hookproof.targets._base import DEFAULT_INPUT, IsolationRuns, Target, TargetRun
from hookproof.targets.interrupts import (
    OnInterrupt,
    check_config,
    check_on_interrupt,
    resume_loop,
    resume_value,
    thread_id,
)
from hookproof.targets.samples import (
    NodeSamples,
    PassedOn,
    hookproof_messages,
    node_call,
    replaces_all,
    sample_request,
    sample_state,
    sample_system_message,
    sample_tool_request,
    sync_call,
)
from hookproof.trace import Trace, TraceEvent

__all__ = ["HarnessTarget", "NativeTarget", "ReferenceTarget", "called", "joined", "resumable"]


class NativeTarget(Target):
    """What hookproof's own dialects (the runtime and Eino) share: scripted recording models,
    their tools, and middleware hooks called on hookproof's sample requests."""

    unexecutable_tool_markers: ClassVar[tuple[str, ...]] = ("UnexecutableToolError",)
    tool_library_modules: ClassVar[tuple[str, ...]] = (
        "pydantic",
        "hookproof.tools",
        "hookproof.eino._tools",
    )

    def models(self, script: Any = None) -> dict[str, Any]:
        names = self.tiers or ("model",)
        turns = script if script is not None else ["done"]
        if callable(turns):
            return {n: RecordingModel(ScriptedModel(turns, name=n)) for n in names}
        return {n: RecordingModel(ScriptedModel(list(turns), name=n)) for n in names}

    def falsy_models(self) -> dict[str, Any]:
        return {n: _FalsyModel(ScriptedModel(["done"], name=n)) for n in self.tiers or ("model",)}

    def tool_objects(self) -> Mapping[str, list[Any]]:
        found: dict[str, list[Any]] = {}
        for item in self.agent(self.models()).tools:
            found.setdefault(_tool_name(item), []).append(item)
        return found

    @classmethod
    def wrap_hook(cls, middleware: object, name: str) -> Callable[[Any, Any], Any] | None:
        sync = getattr(middleware, name, None)
        if callable(sync):
            return sync  # type: ignore[no-any-return]
        async_ = getattr(middleware, f"a{name}", None)
        return sync_call(async_) if callable(async_) else None

    @classmethod
    def sample_model_request(cls, context: Any = None) -> Any:
        return sample_request(context=context)

    @classmethod
    def sample_tool_request(cls, context: Any = None) -> Any:
        return sample_tool_request(context)

    @classmethod
    def passed_on(
        cls, middleware: object, system_message: Any = None, context: Any = None
    ) -> PassedOn | None:
        original = system_message if system_message is not None else sample_system_message()
        request = sample_request(context=context).override(system_message=original)
        seen: list[ModelRequest] = []

        def handler(changed: ModelRequest) -> ModelResponse:
            seen.append(changed)
            return ModelResponse(result=(AssistantMessage(content="ok"),))

        cls.wrap_hook(middleware, "wrap_model_call")(request, handler)  # type: ignore[misc]
        if not seen:
            return None
        passed = seen[-1]
        return PassedOn(original, passed.system_message, request.messages, passed.messages)


class ReferenceTarget(NativeTarget):
    """Runs a factory whose agents are hookproof runtime (or harness) agents."""

    def agent(self, models: Mapping[str, Any]) -> Any:
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
        return {item.name: item.parameters for item in agent.tools}

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
        check_config(config, "a check on a hookproof runtime agent")
        models = dict(models) if models is not None else self.models(script)
        agent, thread = resumable(self.agent(models)), thread_id(config)
        payload = dict(input or DEFAULT_INPUT)
        parts: list[Any] = []
        probe = _Reached()
        token = PROBE.set(probe)
        try:
            paused = resume_loop(
                lambda: agent.invoke(dict(payload), context=context, thread_id=thread),
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
                called=called(models),
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
            called=called(models),
            models=models,
            interrupts_resumed=len(parts) - 1,
            paused=paused,
            reached=tuple(probe.labels),
        )

    def isolation_runs(
        self, script: Any, input: Mapping[str, Any], config: Mapping[str, Any] | None
    ) -> IsolationRuns:
        """Each run on a thread of its own (or a task), so a run that pauses at an
        interrupt stops there (and is compared up to there) instead of failing."""
        check_config(config, "check_isolation on a hookproof runtime agent")
        agent = resumable(self.agent(self.models(script)))

        def sync(context: Any, probe: Any) -> Any:
            token = PROBE.set(probe)
            try:
                return agent.invoke(dict(input), context=context, thread_id=thread_id())
            except Exception as error:  # noqa: BLE001 - compared with the sequential outcome
                return error
            finally:
                PROBE.reset(token)

        async def async_(context: Any, probe: Any) -> Any:
            PROBE.set(probe)
            try:
                return await agent.ainvoke(dict(input), context=context, thread_id=thread_id())
            except Exception as error:  # noqa: BLE001 - compared with the sequential outcome
                return error

        return IsolationRuns(sync, async_)

    # -- one middleware's hooks ----------------------------------------------------------

    @classmethod
    def node_samples(cls, context: Any = None) -> NodeSamples:
        return NodeSamples(
            hook=lambda middleware, name: node_call(
                getattr(middleware, name, None), getattr(middleware, f"a{name}", None)
            ),
            state=sample_state,
            runtime=lambda: Runtime(context=context),
            messages=hookproof_messages,
            replaces_all=replaces_all,
        )

    # -- authoring ---------------------------------------------------------------------

    @classmethod
    def create_agent(
        cls, model: Any, tools: Sequence[Any] = (), middleware: Sequence[Any] = ()
    ) -> Any:
        return create_agent(model, list(tools), middleware=list(middleware))

    @classmethod
    def tool(cls, function: Callable[..., Any]) -> Any:
        return tool(function)

    @classmethod
    def scripted_model(
        cls, *turns: Any, name: str = "scripted", provider: str | None = None
    ) -> Any:
        return RecordingModel(ScriptedModel(list(turns), name=name, provider=provider))

    @classmethod
    def wrap_model_layer(cls, name: str, wrap: Callable[[Any, Any], Any]) -> Any:
        return wrap_model_call(name=name)(wrap)

    @classmethod
    def after_model_hook(cls, name: str, hook: Callable[[Any, Any], Any]) -> Any:
        return after_model(name=name)(hook)

    @classmethod
    def invoke(cls, agent: Any, input: Mapping[str, Any]) -> list[Message]:
        return list(agent.invoke(dict(input)).messages)

    @classmethod
    async def ainvoke(cls, agent: Any, input: Mapping[str, Any]) -> list[Message]:
        return list((await agent.ainvoke(dict(input))).messages)


class HarnessTarget(ReferenceTarget):
    """The reference target authoring deep agents: the harness's create_deep_agent, with
    harness profiles registered in a registry of their own."""

    has_harness_profiles: ClassVar[bool] = True

    @classmethod
    def create_agent(
        cls, model: Any, tools: Sequence[Any] = (), middleware: Sequence[Any] = ()
    ) -> Any:
        from hookproof.harness import create_deep_agent

        return create_deep_agent(model, list(tools), middleware=list(middleware))

    @classmethod
    @contextmanager
    def harness_profiles(cls) -> Iterator[Callable[..., None]]:
        from hookproof.harness import HarnessProfile, isolated_profiles

        with isolated_profiles() as profiles:
            yield lambda key, **fields: profiles.register_harness_profile(
                key, HarnessProfile(**fields)
            )


class _FalsyModel(RecordingModel):
    """A valid model whose truth value is False, as a careless `model or default` trips on."""

    def __bool__(self) -> bool:
        return False


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


def called(models: Mapping[str, Any]) -> tuple[str, ...]:
    """The names of the models that received a request."""
    return tuple(name for name, model in models.items() if model.requests)


def _tool_name(item: Any) -> str:
    name = getattr(item, "name", None)
    if name is None and callable(getattr(item, "info", None)):
        name = item.info().name
    return str(name)
