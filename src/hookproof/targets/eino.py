"""The Eino target: factories whose agents are Eino-dialect ChatModelAgents.

A check's context is the run's ctx: a RunContext, a dict of its values, or None. An Eino tool
answers with text only, so a refusal cannot carry an error status; Eino runs are synchronous
(errors are events, not exceptions), so check_isolation holds them on threads only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from hookproof._engine.probe import PROBE
from hookproof.errors import UsageError
from hookproof.targets._base import DEFAULT_INPUT, IsolationRuns, TargetRun
from hookproof.targets.interrupts import (
    OnInterrupt,
    check_config,
    check_on_interrupt,
    resume_loop,
    resume_value,
    thread_id,
)
from hookproof.targets.reference import NativeTarget, called, joined, resumable
from hookproof.targets.samples import NodeSamples, hookproof_messages, sample_messages
from hookproof.tools import ToolSchema

__all__ = ["EinoTarget", "eino_ctx", "eino_input"]

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

    def tool_schemas(self) -> Mapping[str, Mapping[str, Any]]:
        infos = [_info(item) for item in self.agent(self.models()).tools]
        return {info.name: info.parameters for info in infos}

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

    @classmethod
    def node_samples(cls, context: Any = None) -> NodeSamples:
        """An Eino handler's state rewrites, run as node hooks: the state is a
        ChatModelAgentState, the "runtime" the run's ctx, and a rewrite replaces the
        messages."""
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
