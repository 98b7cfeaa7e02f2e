"""A made-up framework, whole in one module: its agents and middleware, and its roles for
hookproof (a Target, a hook sampler, a conformance kit, a bridge). One ``register_target``
entry (see test_toy_framework.py) is all hookproof needs to know about it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from hookproof.errors import UsageError
from hookproof.messages import UserMessage
from hookproof.models import FinalRequest, RecordingModel, ScriptedModel
from hookproof.runtime import wrap_model_call
from hookproof.targets import RunSettings, RunWithTarget, TargetRun
from hookproof.targets.reference import REFERENCE_KIT, REFERENCE_SAMPLER
from hookproof.tools import ToolSchema

Around = Callable[[Any, Callable[[Any], Any]], Any]


class ToyAgent:
    """An agent of the toy framework: one model call showing the tools its role allows."""

    def __init__(self, model: Any, tools_by_role: Mapping[Any, tuple[str, ...]]) -> None:
        self.model, self.tools_by_role = model, tools_by_role

    def ask(self, text: str, role: Any) -> Any:
        tools = self.tools_by_role.get(role, self.tools_by_role["guest"])
        request = FinalRequest(
            model="toy",
            messages=(UserMessage(content=text),),
            tools=tuple(ToolSchema(name=name, description=name) for name in tools),
        )
        return self.model.invoke(request)


class ToyMiddleware:
    """The toy framework's middleware: one hook, ``around_model(request, handler)``."""

    def __init__(self, name: str = "toy", around: Around | None = None) -> None:
        self.name, self.around, self.seen = name, around, 0

    def around_model(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        self.seen += 1
        return self.around(request, handler) if self.around else handler(request)


class ToyTarget(RunWithTarget):
    """How checks run toy agents."""

    def models(self, script: Any = None) -> dict[str, Any]:
        turns = script if callable(script) else list(script or ["done"])
        return {"model": RecordingModel(ScriptedModel(turns, name="model"))}

    def agent(self, models: Mapping[str, Any]) -> Any:
        agent = self.build(models["model"])
        if not isinstance(agent, ToyAgent):
            raise UsageError(f"hookproof: not a toy agent: {type(agent).__name__}")
        return agent

    def run_with(self, models: dict[str, Any], settings: RunSettings) -> TargetRun:
        try:
            reply = self.agent(models).ask("hi", settings.context)
        except Exception as error:  # noqa: BLE001 - the check judges the crash
            return TargetRun(error=error, models=models)
        requests = models["model"].requests
        return TargetRun(
            messages=(reply,), final_requests=requests, called=("model",), models=models
        )

    def tool_schemas(self) -> Mapping[str, Mapping[str, Any]]:
        return {}


def _toy_hook(middleware: Any, name: str) -> Any:
    return middleware.around_model if name == "wrap_model_call" else None


# Toy middleware's around_model is its wrap_model_call; the samples are the runtime's.
TOY_SAMPLER = replace(REFERENCE_SAMPLER, wrap_hook=_toy_hook)


class _ToyBridge:
    """Runs toy middleware on hookproof's reference runtime."""

    def middleware(self, middleware: ToyMiddleware) -> object:
        return wrap_model_call(name=middleware.name)(middleware.around_model)


TOY_BRIDGE = _ToyBridge()

# The probes author runtime agents whose wrap layers are toy middleware, through the bridge.
TOY_KIT = replace(
    REFERENCE_KIT, wrap_model_layer=lambda name, wrap: ToyMiddleware(name=name, around=wrap)
)
