"""Every contract of hookproof.contracts applied to the example application."""

from __future__ import annotations

from typing import Any

from hypothesis import given

from hookproof import contracts
from hookproof.contracts import strategies
from hookproof.examples.dynamic_routing import (
    BUSINESS_TOOLS,
    AgentContext,
    RequestRouter,
    RuntimeToolRegistry,
    ScopeNoteMiddleware,
    build_deep_support_agent,
    build_support_agent,
)
from hookproof.harness import HarnessProfile, ProfileRegistry

TIERS = ("fast", "reasoning")
GUEST = AgentContext("guest", "fast")


def plain(models: Any) -> Any:
    return build_support_agent(models)


def deep(models: Any) -> Any:
    return build_deep_support_agent(models)


@given(context=strategies.contexts(AgentContext, trusted=False))
def test_router_fails_closed_for_any_hostile_context(context: Any) -> None:
    contracts.check_fail_closed(plain, context, least_privileged_context=GUEST, tiers=TIERS)


@given(context=strategies.contexts(AgentContext, trusted=False))
def test_harness_agent_fails_closed_for_any_hostile_context(context: Any) -> None:
    contracts.check_fail_closed(deep, context, least_privileged_context=GUEST, tiers=TIERS)


def test_hook_order_on_the_harness_agent() -> None:
    target = contracts.ReferenceTarget(deep, tiers=TIERS)
    run = target.run(context=AgentContext("admin"), script=["done"])
    assert run.trace is not None
    contracts.check_hook_order(run.trace)


def test_router_and_registry_never_mutate_requests() -> None:
    models = {"fast": "f", "reasoning": "r"}
    for middleware in (RequestRouter(models), RuntimeToolRegistry(), ScopeNoteMiddleware()):
        contracts.check_request_not_mutated(middleware)


def test_scope_note_preserves_system_metadata() -> None:
    contracts.check_metadata_preserved(ScopeNoteMiddleware())


def test_profile_exclusion_holds_against_user_middleware() -> None:
    registry = ProfileRegistry()
    registry.register_harness_profile(
        "demo", HarnessProfile(excluded_tools=frozenset({"internal_lookup"}))
    )

    def build(models: Any) -> Any:
        for model in models.values():
            model.provider = "demo"
        return build_deep_support_agent(models, profiles=registry)

    contracts.check_exclusion_holds(
        build, {"internal_lookup"}, context=AgentContext("admin"), tiers=TIERS
    )


def test_every_visible_tool_executes() -> None:
    contracts.check_tool_closure(plain, context=AgentContext("admin"), tiers=TIERS)
    contracts.check_tool_closure(deep, context=AgentContext("admin"), tiers=TIERS)


def test_tool_names_are_unique() -> None:
    contracts.check_unique_tool_names(list(BUSINESS_TOOLS))
    contracts.check_unique_tool_names(list(build_deep_support_agent(_pool()).tools))


def _pool() -> dict[str, Any]:
    from hookproof.models import RecordingModel, ScriptedModel

    return {tier: RecordingModel(ScriptedModel(["ok"], name=tier)) for tier in TIERS}


def test_injected_falsy_models_are_used() -> None:
    contracts.check_injected_model_used(plain, tiers=TIERS)
    contracts.check_injected_model_used(deep, tiers=TIERS)


def test_concurrent_runs_stay_isolated() -> None:
    contexts = [AgentContext("guest"), AgentContext("admin"), AgentContext("analyst", "reasoning")]
    contracts.check_isolation(plain, contexts, tiers=TIERS)


def test_example_middleware_retry_and_tool_errors() -> None:
    # Each check is run on the middleware that has the hook it exercises: a check on a
    # middleware without that hook has nothing to check and fails as untested.
    for middleware in (RequestRouter({"fast": "f", "reasoning": "r"}), RuntimeToolRegistry()):
        contracts.check_bounded_retry(middleware)
    contracts.check_tool_errors_surface(RuntimeToolRegistry())
