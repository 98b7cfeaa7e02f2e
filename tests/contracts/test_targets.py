"""Targets: a new framework is one module (a Target subclass, registered by name), picked by
``as_target`` and checked by the same contracts; the registry never imports a framework it
does not need."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from hookproof import contracts
from hookproof.errors import ContractViolation, UsageError
from hookproof.models import RecordingModel, ScriptedModel
from hookproof.targets import (
    Target,
    TargetRun,
    as_target,
    middleware_target,
    register_target,
    registered_targets,
    target_class,
    unregister_target,
)
from tests.targets.toy_framework import ToyAgent


class ToyTarget(Target):
    """The whole of what the made-up framework needs to be checked."""

    def models(self, script: Any = None) -> dict[str, Any]:
        turns = script if callable(script) else list(script or ["done"])
        return {"model": RecordingModel(ScriptedModel(turns, name="model"))}

    def agent(self, models: Mapping[str, Any]) -> Any:
        agent = self.build(models["model"])
        if not isinstance(agent, ToyAgent):
            raise UsageError(f"hookproof: not a toy agent: {type(agent).__name__}")
        return agent

    def run(self, *, context: Any = None, script: Any = None, models: Any = None, **_: Any) -> Any:
        models = dict(models) if models is not None else self.models(script)
        try:
            reply = self.agent(models).ask("hi", context)
        except Exception as error:  # noqa: BLE001 - the check judges the crash
            return TargetRun(error=error, models=models)
        requests = models["model"].requests
        return TargetRun(
            messages=(reply,), final_requests=requests, called=("model",), models=models
        )

    def tool_schemas(self) -> Mapping[str, Mapping[str, Any]]:
        return {}


@pytest.fixture
def toy() -> Iterator[None]:
    register_target("toy", ToyTarget)
    yield
    unregister_target("toy")


def _fair(model: Any) -> ToyAgent:
    return ToyAgent(model, {"guest": ("search",), "admin": ("search", "delete")})


def _leaky(model: Any) -> ToyAgent:
    return ToyAgent(model, {"guest": ("search",), "admin": ("search", "delete"), None: ("delete",)})


@pytest.mark.usefixtures("toy")
def test_a_registered_target_is_picked_for_its_factories_and_checked() -> None:
    assert isinstance(as_target(_fair), ToyTarget)
    report = contracts.check_fail_closed(_fair, "stranger", least_privileged_context="guest")
    assert report.runs == 2


@pytest.mark.usefixtures("toy")
def test_a_registered_target_finds_real_violations() -> None:
    with pytest.raises(ContractViolation, match="tools beyond the least-privileged set"):
        contracts.check_fail_closed(_leaky, None, least_privileged_context="guest")


def test_without_its_target_a_factory_is_refused_by_the_reference_target() -> None:
    with pytest.raises(UsageError, match="which the reference target cannot run"):
        as_target(_fair)


def test_the_registry_rejects_unknown_names_and_non_targets() -> None:
    with pytest.raises(UsageError, match="Did you mean 'langchain'"):
        target_class("langchian")
    with pytest.raises(UsageError, match="Target subclass"):
        register_target("bad", object)  # type: ignore[arg-type]
    assert "bad" not in registered_targets()


def test_middleware_of_an_unknown_framework_gets_the_reference_hooks() -> None:
    assert middleware_target(object()) is target_class("reference")


def test_importing_the_contracts_imports_no_framework() -> None:
    code = (
        "import sys, hookproof.contracts, hookproof.targets\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('langchain', 'langchain_core',"
        " 'deepagents') or m.startswith(('hookproof.adapters', 'hookproof.targets.eino'))]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
