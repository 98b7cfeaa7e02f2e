"""Profiles: merge rules, lookup, resolution, config round trip and registry isolation."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hookproof.errors import HookproofError, InvalidInputError, UsageError
from hookproof.harness import (
    GeneralPurposeSubagentProfile,
    HarnessProfile,
    HarnessProfileConfig,
    ProfileRegistry,
    ProviderProfile,
    create_deep_agent,
    current_registry,
    isolated_profiles,
    register_harness_profile,
)
from hookproof.models import RecordingModel, ScriptedModel
from tests.helpers import registry_of


class Audit:
    def __init__(self, label: str = "") -> None:
        self.label = label


class Metrics:
    pass


def test_harness_merge_table() -> None:
    old = HarnessProfile(
        base_system_prompt="BASE",
        system_prompt_suffix="OLD",
        tool_description_overrides={"ls": "List.", "grep": "Search."},
        excluded_tools=frozenset({"execute"}),
        extra_middleware=[Audit("old"), Metrics()],
        general_purpose_subagent=GeneralPurposeSubagentProfile(enabled=True, description="D1"),
    )
    new = HarnessProfile(
        system_prompt_suffix="NEW",
        tool_description_overrides={"ls": "List files."},
        excluded_tools=frozenset({"grep"}),
        excluded_middleware=frozenset({"TodoListMiddleware"}),
        extra_middleware=[Audit("new")],
        general_purpose_subagent=GeneralPurposeSubagentProfile(enabled=False),
    )
    registry = registry_of(("acme", old), ("acme", new))
    merged = registry.harness_profile("acme", None)
    assert merged.base_system_prompt == "BASE"
    assert merged.system_prompt_suffix == "NEW"
    assert merged.tool_description_overrides == {"ls": "List files.", "grep": "Search."}
    assert merged.excluded_tools == {"execute", "grep"}
    assert merged.excluded_middleware == {"TodoListMiddleware"}
    extras = merged.materialise_extra_middleware()
    assert [(type(m).__name__, getattr(m, "label", None)) for m in extras] == [
        ("Metrics", None),
        ("Audit", "new"),
    ]
    assert merged.general_purpose_subagent == GeneralPurposeSubagentProfile(
        enabled=False, description="D1"
    )


def test_lookup_merges_provider_then_exact_model() -> None:
    registry = registry_of(
        ("acme", HarnessProfile(system_prompt_suffix="P", excluded_tools=frozenset({"a"}))),
        ("acme:big", HarnessProfile(system_prompt_suffix="M", excluded_tools=frozenset({"b"}))),
    )
    exact = registry.harness_profile("acme", "big")
    assert (exact.system_prompt_suffix, exact.excluded_tools) == ("M", {"a", "b"})
    other = registry.harness_profile("acme", "small")
    assert (other.system_prompt_suffix, other.excluded_tools) == ("P", {"a"})
    assert registry.harness_profile(None, "big") == HarnessProfile()


def test_extra_middleware_factory_runs_once_per_stack() -> None:
    calls: list[int] = []

    def factory() -> list[object]:
        calls.append(1)
        return [Audit()]

    general = GeneralPurposeSubagentProfile(enabled=False)
    registry = registry_of(
        ("acme", HarnessProfile(extra_middleware=factory)),
        ("acme", HarnessProfile(general_purpose_subagent=general)),
    )
    first = create_deep_agent(ScriptedModel([], provider="acme"), profiles=registry)
    second = create_deep_agent(ScriptedModel([], provider="acme"), profiles=registry)
    assert len(calls) == 2
    audits = [m for agent in (first, second) for m in agent.middleware if isinstance(m, Audit)]
    assert len(audits) == 2 and audits[0] is not audits[1]


@pytest.mark.parametrize("key", ["", "a b", "acme:", ":model", "acme:big:x y"])
def test_malformed_keys_are_rejected(key: str) -> None:
    with pytest.raises(InvalidInputError, match="malformed"):
        ProfileRegistry().register_harness_profile(key, HarnessProfile())


def test_malformed_names_and_wrong_types_are_rejected() -> None:
    with pytest.raises(InvalidInputError, match="is not a tool or middleware name"):
        HarnessProfile(excluded_tools=frozenset({"bad name"}))
    with pytest.raises(UsageError, match="expected a HarnessProfile"):
        ProfileRegistry().register_harness_profile("acme", {"suffix": "x"})  # type: ignore[arg-type]


def test_provider_profile_merge_composes_pre_init_and_factories() -> None:
    events: list[str] = []
    registry = ProfileRegistry()
    registry.register_model_factory("acme", lambda name, **kw: (name, kw))
    registry.register_provider_profile(
        "acme",
        ProviderProfile(
            init_kwargs={"a": 1, "b": 1},
            init_kwargs_factory=lambda: {"c": 1, "d": 1},
            pre_init=lambda spec: events.append(f"provider {spec}"),
        ),
    )
    registry.register_provider_profile(
        "acme:m",
        ProviderProfile(
            init_kwargs={"b": 2},
            init_kwargs_factory=lambda: {"d": 2},
            pre_init=lambda spec: events.append(f"model {spec}"),
        ),
    )
    name, kwargs = registry.resolve_model("acme:m", a=9)
    assert (name, kwargs) == ("m", {"a": 9, "b": 2, "c": 1, "d": 2})
    assert events == ["provider acme:m", "model acme:m"]
    with pytest.raises(InvalidInputError, match="'provider:model'"):
        registry.resolve_model("acme")


def test_model_instances_ignore_provider_profiles() -> None:
    def refuse(spec: str) -> None:
        raise RuntimeError(f"pre_init ran for {spec}")

    registry = ProfileRegistry()
    registry.register_provider_profile("acme", ProviderProfile(pre_init=refuse))
    model = RecordingModel(ScriptedModel(["ok"], provider="acme"))
    create_deep_agent(model, profiles=registry).invoke({"messages": [("user", "hi")]})
    assert len(model.requests) == 1


def test_config_round_trip_and_refusals() -> None:
    config = HarnessProfileConfig(
        base_system_prompt="B",
        excluded_middleware=frozenset({"SummarizationMiddleware"}),
        general_purpose_subagent={"enabled": True, "description": "G"},
    )
    data = json.loads(json.dumps(config.to_dict()))
    assert data == {
        "base_system_prompt": "B",
        "excluded_middleware": ["SummarizationMiddleware"],
        "general_purpose_subagent": {"enabled": True, "description": "G"},
    }
    assert HarnessProfileConfig.from_dict(data) == config
    with pytest.raises(InvalidInputError, match="extra_middleware holds code"):
        HarnessProfileConfig.from_dict({"extra_middleware": "myapp.mw:Factory"})
    with pytest.raises(InvalidInputError, match="must be a list"):
        HarnessProfileConfig.from_dict({"excluded_tools": "execute"})
    with pytest.raises(InvalidInputError, match=r"general_purpose_subagent\.model: is not"):
        HarnessProfileConfig.from_dict({"general_purpose_subagent": {"model": "x"}})


def test_isolated_profiles_do_not_leak() -> None:
    before = current_registry()
    with isolated_profiles() as registry:
        register_harness_profile("leak", HarnessProfile(system_prompt_suffix="L"))
        assert registry.harness_profile("leak", None).system_prompt_suffix == "L"
        assert current_registry() is registry
    assert current_registry() is before
    assert before.harness_profile("leak", None) == HarnessProfile()


@pytest.mark.parametrize("worker", range(4))
def test_registrations_in_one_test_are_invisible_to_another(
    worker: int, hookproof_profiles: ProfileRegistry
) -> None:
    assert hookproof_profiles.harness_profile("shared", None) == HarnessProfile()
    register_harness_profile("shared", HarnessProfile(system_prompt_suffix=f"worker {worker}"))
    assert (
        current_registry().harness_profile("shared", None).system_prompt_suffix
        == f"worker {worker}"
    )


def test_required_scaffolding_error_names_it() -> None:
    with pytest.raises(HookproofError, match=r"cannot exclude \['FilesystemMiddleware'\]"):
        HarnessProfile(excluded_middleware=frozenset({"FilesystemMiddleware"}))


def test_registered_profile_reaches_an_agent_built_after_it(hookproof_profiles: Any) -> None:
    register_harness_profile("acme", HarnessProfile(system_prompt_suffix="[ACME]"))
    model = RecordingModel(ScriptedModel(["ok"], provider="acme"))
    create_deep_agent(model).invoke({"messages": [("user", "hi")]})
    assert "[ACME]" in model.last.system_text
