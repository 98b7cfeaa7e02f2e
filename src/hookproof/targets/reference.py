"""The reference runtime's roles: its target runs factories whose agents are hookproof
runtime (or harness) agents; its hook sampler calls hookproof middleware on hookproof's
sample requests; its conformance kits author runtime and harness agents."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, ClassVar

from hookproof._engine.probe import PROBE
from hookproof._support.assembled import assembled
from hookproof.errors import UsageError
from hookproof.harness import HarnessProfile, create_deep_agent, isolated_profiles
from hookproof.messages import AssistantMessage, Message
from hookproof.models import RecordingModel, ScriptedModel
from hookproof.runtime import (
    Agent,
    Command,
    ModelRequest,
    ModelResponse,
    Runtime,
    after_model,
    create_agent,
    tool,
    wrap_model_call,
)
from hookproof.targets._base import IsolationRuns, RunSettings, RunWithTarget, TargetRun
from hookproof.targets._reference_runs import (
    Reached,
    called,
    final_requests,
    joined,
    recorded,
    resumable,
    run_input,
)
from hookproof.targets.authoring import ConformanceKit
from hookproof.targets.interrupts import check_config, resume_loop, resume_value, thread_id
from hookproof.targets.sampler import (
    HookSampler,
    NodeSamples,
    PassedOn,
    hookproof_messages,
    node_call,
    replaces_all,
    sync_call,
)
from hookproof.targets.samples import (
    sample_request,
    sample_state,
    sample_system_message,
    sample_tool_request,
)

__all__ = [
    "HARNESS_KIT",
    "REFERENCE_KIT",
    "REFERENCE_SAMPLER",
    "HarnessTarget",
    "NativeTarget",
    "ReferenceTarget",
    "called",
    "joined",
    "native_wrap_hook",
    "resumable",
]


class NativeTarget(RunWithTarget):
    """What hookproof's own dialects (the runtime and Eino) share: scripted recording models
    and their tools."""

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


class ReferenceTarget(NativeTarget):
    """Runs a factory whose agents are hookproof runtime (or harness) agents."""

    def __init__(self, build: Any, *, tiers: Sequence[str] | None = None) -> None:
        super().__init__(build, tiers=tiers)
        self._kept: list[tuple[dict[str, Any], Any]] = []  # (fresh models, their agent)
        self._taken: dict[int, tuple[dict[str, Any], Any]] = {}

    def _keep_built(self, models: dict[str, Any], agent: Any) -> None:
        """Keep the agent ``as_target`` built to recognise the factory, with its unused
        models (the default script's): the next ``models()`` hands those out once, and
        ``agent()`` of them returns it, so that run does not build the agent again."""
        self._kept[:] = [(models, agent)]

    def models(self, script: Any = None) -> dict[str, Any]:
        if script is None and self._kept:
            try:
                models, agent = self._kept.pop()  # once, even across threads
            except IndexError:
                return super().models(script)
            self._taken[id(models)] = (models, agent)
            return models
        return super().models(script)

    def agent(self, models: Mapping[str, Any]) -> Any:
        kept = self._taken.pop(id(models), None)
        if kept is not None and kept[0] is models:
            return kept[1]
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

    def middleware_constructors(self) -> Sequence[tuple[Callable[..., Any], str]]:
        return [(create_agent, "middleware")]  # the harness builds through it too

    def run_with(self, models: dict[str, Any], settings: RunSettings) -> TargetRun:
        check_config(settings.config, "a check on a hookproof runtime agent")
        agent, thread = resumable(self.agent(models)), thread_id(settings.config)
        payload, context = run_input(settings.input), settings.context
        answer = settings.on_interrupt
        parts: list[Any] = []
        probe = Reached()
        token = PROBE.set(probe)
        try:
            paused = resume_loop(
                lambda: agent.run(dict(payload), context=context, thread_id=thread),
                lambda last: agent.run(
                    Command(resume=resume_value(last.interrupts[0].value, answer)),
                    context=context,
                    thread_id=thread,
                ),
                lambda last: [pending.value for pending in last.interrupts],
                answer,
                parts,
            )
        except Exception as error:  # noqa: BLE001 - a crash is an observation the check judges
            return assembled(
                TargetRun,
                final_requests=recorded(models),
                called=called(models),
                error=error,
                models=models,
                interrupts_resumed=len(parts),
                reached=tuple(probe.labels),
            )
        finally:
            PROBE.reset(token)
        return assembled(
            TargetRun,
            messages=parts[-1].messages,
            trace=joined([part.trace for part in parts]),
            final_requests=final_requests(parts),
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
                return agent.run(dict(input), context=context, thread_id=thread_id())
            except Exception as error:  # noqa: BLE001 - compared with the sequential outcome
                return error
            finally:
                PROBE.reset(token)

        async def async_(context: Any, probe: Any) -> Any:
            PROBE.set(probe)
            try:
                return await agent.arun(dict(input), context=context, thread_id=thread_id())
            except Exception as error:  # noqa: BLE001 - compared with the sequential outcome
                return error

        return IsolationRuns(sync, async_)


class HarnessTarget(ReferenceTarget):
    """The reference target registered for authoring deep agents (``HARNESS_KIT``): checks
    run harness agents through ``ReferenceTarget`` as well."""


class _FalsyModel(RecordingModel):
    """A valid model whose truth value is False, as a careless `model or default` trips on."""

    def __bool__(self) -> bool:
        return False


def _tool_name(item: Any) -> str:
    name = getattr(item, "name", None)
    if name is None and callable(getattr(item, "info", None)):
        name = item.info().name
    return str(name)


# -- hook sampling: hookproof middleware on hookproof's sample requests ------------------


def native_wrap_hook(middleware: object, name: str) -> Callable[[Any, Any], Any] | None:
    """The middleware's wrap hook ``name`` as a plain call (an async-only one on its loop)."""
    sync = getattr(middleware, name, None)
    if callable(sync):
        return sync  # type: ignore[no-any-return]
    async_ = getattr(middleware, f"a{name}", None)
    return sync_call(async_) if callable(async_) else None


def _passed_on(
    middleware: object, system_message: Any = None, context: Any = None
) -> PassedOn | None:
    original = system_message if system_message is not None else sample_system_message()
    request = sample_request(context=context).override(system_message=original)
    seen: list[ModelRequest] = []

    def handler(changed: ModelRequest) -> ModelResponse:
        seen.append(changed)
        return ModelResponse(result=(AssistantMessage(content="ok"),))

    native_wrap_hook(middleware, "wrap_model_call")(request, handler)  # type: ignore[misc]
    if not seen:
        return None
    passed = seen[-1]
    return PassedOn(original, passed.system_message, request.messages, passed.messages)


def _node_samples(context: Any = None) -> NodeSamples:
    return NodeSamples(
        hook=lambda middleware, name: node_call(
            getattr(middleware, name, None), getattr(middleware, f"a{name}", None)
        ),
        state=sample_state,
        runtime=lambda: Runtime(context=context),
        messages=hookproof_messages,
        replaces_all=replaces_all,
    )


REFERENCE_SAMPLER = HookSampler(
    wrap_hook=native_wrap_hook,
    node_samples=_node_samples,
    sample_model_request=sample_request,
    sample_tool_request=sample_tool_request,
    passed_on=_passed_on,
)


# -- conformance authoring: runtime and harness agents ------------------------------------


def _scripted_model(*turns: Any, name: str = "scripted", provider: str | None = None) -> Any:
    return RecordingModel(ScriptedModel(list(turns), name=name, provider=provider))


def _invoke(agent: Any, input: Mapping[str, Any]) -> list[Message]:
    return list(agent.run(dict(input)).messages)


async def _ainvoke(agent: Any, input: Mapping[str, Any]) -> list[Message]:
    return list((await agent.arun(dict(input))).messages)


REFERENCE_KIT = ConformanceKit(
    create_agent=lambda model, tools, middleware: create_agent(
        model, list(tools), middleware=list(middleware)
    ),
    tool=tool,
    scripted_model=_scripted_model,
    wrap_model_layer=lambda name, wrap: wrap_model_call(name=name)(wrap),
    after_model_hook=lambda name, hook: after_model(name=name)(hook),
    invoke=_invoke,
    ainvoke=_ainvoke,
    model_request=sample_request,
)


@contextmanager
def _harness_profiles() -> Iterator[Callable[..., None]]:
    """Harness profiles registered in a registry of their own, for the block."""
    with isolated_profiles() as profiles:
        yield lambda key, **fields: profiles.register_harness_profile(key, HarnessProfile(**fields))


HARNESS_KIT = replace(
    REFERENCE_KIT,
    create_agent=lambda model, tools, middleware: create_deep_agent(
        model, list(tools), middleware=list(middleware)
    ),
    harness_profiles=_harness_profiles,
)
