"""The Eino dialect's roles: its target runs factories whose agents are Eino-dialect
ChatModelAgents; its hook sampler runs a handler's state rewrites as node hooks.

A check's context is the run's ctx: a RunContext, a dict of its values, or None. An Eino tool
answers with text only, so a refusal cannot carry an error status; Eino runs are synchronous
(errors are events, not exceptions), so check_isolation holds them on threads only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from hookproof._engine.probe import PROBE
from hookproof.errors import UsageError
from hookproof.targets._base import DEFAULT_INPUT, IsolationRuns, RunSettings, TargetRun
from hookproof.targets.interrupts import check_config, resume_loop, resume_value, thread_id
from hookproof.targets.reference import REFERENCE_SAMPLER, NativeTarget, called, joined, resumable
from hookproof.targets.sampler import NodeSamples, hookproof_messages
from hookproof.targets.samples import sample_messages
from hookproof.tools import ToolSchema

__all__ = ["EINO_SAMPLER", "EinoTarget", "eino_ctx", "eino_input"]

# The Eino handler methods that rewrite the state, run as node hooks.
_STATE_REWRITES = {
    "before_model": "before_model_rewrite_state",
    "after_model": "after_model_rewrite_state",
}


class EinoTarget(NativeTarget):
    """Runs a factory whose agents are Eino-dialect ChatModelAgents."""

    tool_answers_carry_status: ClassVar[bool] = False
    unknown_tool_markers: ClassVar[tuple[str, ...]] = ("not found in toolsNode indexes",)

    def agent(self, models: Mapping[str, Any]) -> Any:
        from hookproof.eino import ChatModelAgent

        agent = self.build(dict(models) if self.tiers else models["model"])
        if not isinstance(agent, ChatModelAgent):
            raise UsageError(
                f"hookproof: the factory returned {type(agent).__name__}, not a "
                "hookproof.eino.ChatModelAgent."
            )
        return agent

    def middleware_constructors(self) -> Sequence[tuple[Callable[..., Any], str]]:
        from hookproof.eino import ChatModelAgent

        return [(ChatModelAgent, "handlers")]

    def tool_schemas(self) -> Mapping[str, Mapping[str, Any]]:
        infos = [_info(item) for item in self.agent(self.models()).tools]
        return {info.name: info.parameters for info in infos}

    def run_with(self, models: dict[str, Any], settings: RunSettings) -> TargetRun:
        check_config(settings.config, "a check on an Eino-dialect agent")
        agent, ctx = resumable(self.agent(models)), eino_ctx(settings.context)
        checkpoint, answer = thread_id(settings.config), settings.on_interrupt
        runs: list[Any] = []
        paused = resume_loop(
            lambda: agent.run(eino_input(settings.input), ctx, checkpoint_id=checkpoint),
            lambda last: agent.resume(
                checkpoint, resume_value(last.result.interrupts[0].value, answer), ctx
            ),
            _pending,
            answer,
            runs,
        )
        last = runs[-1]
        return TargetRun(
            messages=last.messages,
            trace=joined([run.trace for run in runs]),
            final_requests=tuple(r for run in runs for r in run.final_requests),
            called=called(models),
            error=last.error,
            models=models,
            interrupts_resumed=len(runs) - 1,
            paused=paused,
        )

    def isolation_runs(
        self, script: Any, input: Mapping[str, Any], config: Mapping[str, Any] | None
    ) -> IsolationRuns:
        check_config(config, "check_isolation on an Eino-dialect agent")
        agent = resumable(self.agent(self.models(script)))

        def sync(context: Any, probe: Any) -> Any:
            token = PROBE.set(probe)
            try:
                return agent.run(eino_input(input), eino_ctx(context), checkpoint_id=thread_id())
            finally:
                PROBE.reset(token)

        return IsolationRuns(sync)


def _node_samples(context: Any = None) -> NodeSamples:
    """An Eino handler's state rewrites, run as node hooks: the state is a
    ChatModelAgentState, the "runtime" the run's ctx, and a rewrite replaces the messages."""
    from hookproof.eino import ChatModelAgentState, RunContext

    def ctx() -> Any:
        return context if isinstance(context, RunContext) else RunContext(dict(context or {}))

    def written(outcome: Any, given: Any) -> list[Any] | None:
        messages = getattr(outcome, "messages", None)
        return None if messages is None or messages == given.messages else list(messages)

    return NodeSamples(
        hook=_state_rewrite,
        state=lambda: ChatModelAgentState(messages=tuple(sample_messages())),
        runtime=ctx,
        messages=hookproof_messages,
        replaces_all=lambda _items: True,
        written=written,
        state_messages=lambda state: state.messages,
    )


# Eino middleware's wrap hooks are called as the runtime's; its node hooks are state rewrites.
EINO_SAMPLER = replace(REFERENCE_SAMPLER, node_samples=_node_samples)


def _state_rewrite(middleware: object, name: str) -> Callable[[Any, Any], Any] | None:
    from hookproof.eino import BaseChatModelAgentMiddleware, ModelContext

    own = _STATE_REWRITES.get(name)
    method = getattr(type(middleware), own, None) if own else None
    if method is None or method is getattr(BaseChatModelAgentMiddleware, own or "", None):
        return None
    bound = getattr(middleware, own or "")
    return lambda state, ctx: bound(ctx, state, ModelContext())[1]


def _pending(run: Any) -> list[Any]:
    if not run.interrupted or run.error is not None:
        return []
    return [pending.value for pending in run.result.interrupts]


def _info(item: Any) -> ToolSchema:
    info = item.info()
    return ToolSchema.model_validate(info) if isinstance(info, Mapping) else info


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
