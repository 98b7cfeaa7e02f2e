"""The source article's contracts (section 7.3) on the deep-agent harness, by theme.

Each test name says what it proves. Profiles are registered in isolated registries, so no
test sees another's profiles (also under pytest-xdist).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from hookproof.context import ToolRuntime
from hookproof.errors import DuplicateToolError, HookproofError
from hookproof.examples.dynamic_routing import (
    BUSINESS_TOOL_NAMES,
    BUSINESS_TOOLS,
    AgentContext,
    RequestRouter,
    ScopeNoteMiddleware,
    build_deep_support_agent,
    build_models,
    internal_lookup,
    public_search,
    validate_unique_tool_names,
)
from hookproof.examples.profile_demo import (
    DEMO_BASE_URL,
    DEMO_HARNESS_PROFILE,
    PROFILE_SUFFIX,
    PUBLIC_SEARCH_OVERRIDE,
    register_teaching_provider,
)
from hookproof.harness import (
    GeneralPurposeSubagentProfile,
    HarnessProfile,
    HarnessProfileConfig,
    ProfileRegistry,
    create_deep_agent,
    isolated_profiles,
)
from hookproof.messages import SystemMessage, TextBlock, ToolMessage
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.runtime import AgentMiddleware, ModelRequest, ModelResponse

ASK = {"messages": [("user", "Help me, please.")]}


@pytest.fixture
def registry() -> Iterator[ProfileRegistry]:
    with isolated_profiles() as fresh:
        yield fresh


def _pool(*turns: Any) -> dict[str, RecordingModel]:
    return {t: RecordingModel(ScriptedModel(list(turns), name=t)) for t in ("fast", "reasoning")}


def _business(model: RecordingModel) -> list[str]:
    return sorted(set(model.requests[0].tool_names) & BUSINESS_TOOL_NAMES)


HARNESS_TOOLS = {
    "write_todos",
    "ls",
    "read_file",
    "write_file",
    "edit_file",
    "glob",
    "grep",
    "task",
}


class TestFailClosedRouting:
    @pytest.mark.parametrize("role", ["root", "", "ADMIN"])
    def test_unknown_role_fails_closed_to_guest_and_fast(self, role: Any) -> None:
        pool = _pool("ok")
        build_deep_support_agent(pool).invoke(ASK, context=AgentContext(role, "reasoning"))
        assert pool["reasoning"].requests == ()
        assert _business(pool["fast"]) == ["public_search"]

    def test_missing_runtime_or_context_fails_closed_to_guest(self) -> None:
        pool = _pool("ok")
        build_deep_support_agent(pool).invoke(ASK)
        assert _business(pool["fast"]) == ["public_search"]
        seen: list[ModelRequest] = []

        def handler(request: ModelRequest) -> ModelResponse:
            seen.append(request)
            return ModelResponse(result=())

        bare = ModelRequest.create(model=pool["reasoning"], tools=list(BUSINESS_TOOLS))
        RequestRouter(pool).wrap_model_call(bare, handler)
        assert seen[0].model is pool["fast"]
        assert seen[0].tool_names == ["public_search"]

    def test_router_never_removes_harness_tools(self) -> None:
        pool = _pool("ok")
        build_deep_support_agent(pool).invoke(ASK, context=AgentContext("guest"))
        assert set(pool["fast"].last.tool_names) >= HARNESS_TOOLS


class TestModelPool:
    def test_model_pool_must_contain_both_tiers(self) -> None:
        with pytest.raises(ValueError, match="both 'fast' and 'reasoning'"):
            RequestRouter({"reasoning": RecordingModel(ScriptedModel([]))})

    def test_falsy_injected_model_is_still_used(self) -> None:
        class Falsy(RecordingModel):
            def __bool__(self) -> bool:
                return False

        fast = Falsy(ScriptedModel(["ok"], name="fast"))
        pool = build_models(fast=fast)
        assert pool["fast"] is fast and pool["reasoning"] is fast
        build_deep_support_agent(pool).invoke(ASK, context=AgentContext())
        assert len(fast.requests) == 1


class TestRoleRouting:
    def test_guest_gets_fast_model_and_public_search_only(self) -> None:
        pool = _pool("ok")
        build_deep_support_agent(pool).invoke(ASK, context=AgentContext("guest", "fast"))
        assert _business(pool["fast"]) == ["public_search"]
        assert pool["reasoning"].requests == ()

    def test_analyst_gets_reasoning_model_and_internal_lookup(self) -> None:
        pool = _pool("ok")
        build_deep_support_agent(pool).invoke(ASK, context=AgentContext("analyst", "reasoning"))
        assert _business(pool["reasoning"]) == ["internal_lookup", "public_search"]
        assert pool["fast"].requests == ()


class TestAuthorisation:
    def test_guest_is_denied_on_the_direct_tool_path(self) -> None:
        runtime: ToolRuntime[AgentContext] = ToolRuntime(context=AgentContext("guest"), state={})
        with pytest.raises(PermissionError, match="'guest'"):
            internal_lookup.run({"customer_id": "c-42"}, runtime)

    def test_guest_is_denied_through_the_full_agent(self) -> None:
        pool = _pool(call("internal_lookup", {"customer_id": "c-42"}), "never")
        with pytest.raises(PermissionError, match="'guest'"):
            build_deep_support_agent(pool).invoke(ASK, context=AgentContext("guest"))


class TestMiddlewareOrder:
    def test_wrap_layers_nest_with_the_first_outermost(self) -> None:
        result = build_deep_support_agent(_pool("ok")).invoke(ASK)
        wraps = [e.middleware for e in result.trace.select("layer") if e.phase == "enter"]
        exits = [e.middleware for e in result.trace.select("layer") if e.phase == "exit"]
        assert wraps[:3] == ["TodoListMiddleware", "FilesystemMiddleware", "SubAgentMiddleware"]
        assert wraps.index("RequestRouter") < wraps.index("HarnessProfileToolExclusion")
        assert exits == wraps[::-1]


def _profiled_agent(registry: ProfileRegistry, **kwargs: Any) -> tuple[RecordingModel, Any]:
    registry.register_harness_profile("demo:profile-recording", DEMO_HARNESS_PROFILE)
    model = RecordingModel(ScriptedModel(["ok"], name="profile-recording", provider="demo"))
    agent = build_deep_support_agent(
        {"fast": model, "reasoning": model}, profiles=registry, **kwargs
    )
    agent.invoke(ASK, context=AgentContext("admin"))
    return model, agent


class TestHarnessProfile:
    def test_profile_suffix_reaches_the_system_prompt(self, registry: ProfileRegistry) -> None:
        model, _ = _profiled_agent(registry)
        assert PROFILE_SUFFIX in model.last.system_text

    def test_profile_overrides_a_tool_description(self, registry: ProfileRegistry) -> None:
        model, _ = _profiled_agent(registry)
        assert model.last.tool("public_search").description == PUBLIC_SEARCH_OVERRIDE

    def test_profile_excludes_tools_from_the_final_request(self, registry: ProfileRegistry) -> None:
        model, _ = _profiled_agent(registry)
        assert "internal_lookup" not in model.last.tool_names
        assert "export_customer_report" in model.last.tool_names

    def test_profile_disables_the_general_purpose_subagent(self, registry: ProfileRegistry) -> None:
        model, _ = _profiled_agent(registry)
        assert "task" not in model.last.tool_names
        registry.register_harness_profile(
            "demo:other",
            HarnessProfile(
                general_purpose_subagent=GeneralPurposeSubagentProfile(description="Helper X.")
            ),
        )
        other = RecordingModel(ScriptedModel(["ok"], name="other", provider="demo"))
        create_deep_agent(other, profiles=registry).invoke(ASK)
        assert "- general-purpose: Helper X." in other.last.tool("task").description


class TestProviderProfile:
    def test_provider_kwargs_merge_in_order(self, registry: ProfileRegistry) -> None:
        register_teaching_provider(registry, {"TEACHING_BASE_URL": DEMO_BASE_URL})
        client = registry.resolve_model("teaching:demo-model", timeout=45)
        assert client.kwargs == {"temperature": 0.2, "timeout": 45, "base_url": DEMO_BASE_URL}
        assert list(client.kwargs) == ["temperature", "timeout", "base_url"]

    def test_missing_base_url_fails_before_any_client_exists(
        self, registry: ProfileRegistry
    ) -> None:
        built: list[str] = []
        register_teaching_provider(registry, environ={})
        registry.register_model_factory("teaching", lambda model, **kw: built.append(model))
        with pytest.raises(RuntimeError, match="TEACHING_BASE_URL is required"):
            registry.resolve_model("teaching:demo-model")
        assert built == []


class TestProfileConfig:
    def test_harness_profile_config_round_trips_through_json(self) -> None:
        import json

        config = HarnessProfileConfig(
            system_prompt_suffix="S",
            tool_description_overrides={"ls": "List."},
            excluded_tools=frozenset({"execute"}),
            general_purpose_subagent={"enabled": False},
        )
        again = HarnessProfileConfig.from_dict(json.loads(json.dumps(config.to_dict())))
        assert again == config
        assert again.to_profile().excluded_tools == frozenset({"execute"})

    def test_required_scaffolding_cannot_be_excluded(self) -> None:
        for name in ("FilesystemMiddleware", "SubAgentMiddleware"):
            with pytest.raises(HookproofError, match=name):
                HarnessProfile(excluded_middleware=frozenset({name}))
        with pytest.raises(HookproofError, match="FilesystemMiddleware"):
            HarnessProfileConfig.from_dict(
                {"excluded_middleware": ["FilesystemMiddleware"]}
            ).to_profile()


class TestRequestIntegrity:
    def test_request_override_leaves_the_original_untouched(self) -> None:
        original = ModelRequest.create(
            model="fast", messages=[("user", "hi")], tools=list(BUSINESS_TOOLS), state={"k": [1]}
        )
        before = copy.deepcopy(original)
        changed = original.override(model="reasoning", tools=[public_search])
        assert original == before
        assert changed.tool_names == ["public_search"]

    def test_system_message_metadata_survives_the_scope_note(self) -> None:
        system = SystemMessage(
            content=[TextBlock(text="Base.", cache_control={"type": "ephemeral"})],
            id="sys-1",
            name="base",
            additional_kwargs={"origin": "app"},
            response_metadata={"rev": 3},
        )
        model = RecordingModel(ScriptedModel(["ok"]))
        from hookproof.runtime import create_agent

        create_agent(
            model, system_prompt=system, middleware=[ScopeNoteMiddleware("Scope: c-42.")]
        ).invoke(ASK)
        final = model.last.system_message
        assert final is not None
        assert (final.id, final.name) == ("sys-1", "base")
        assert final.additional_kwargs == {"origin": "app"}
        assert final.response_metadata == {"rev": 3}
        assert final.content[0].cache_control == {"type": "ephemeral"}
        assert final.text == "Base.\nScope: c-42."


class TestToolRegistration:
    def test_duplicate_tool_names_fail_at_start_up(self) -> None:
        with pytest.raises(ValueError, match="duplicate tool names: public_search"):
            validate_unique_tool_names([public_search, public_search])
        with pytest.raises(DuplicateToolError, match="public_search"):
            create_deep_agent(_pool("ok")["fast"], [public_search, public_search])

    def test_runtime_two_hook_tool_really_executes(self) -> None:
        pool = _pool(call("calculate_tip", {"amount": 20, "percentage": 15}), "The tip is 3.00.")
        result = build_deep_support_agent(pool).invoke(ASK, context=AgentContext())
        tool_answers = [m.text for m in result.messages if m.role == "tool"]
        assert tool_answers == ["3.00"]
        assert "calculate_tip" in pool["fast"].requests[0].tool_names


class SwitchToRuntimeModel(AgentMiddleware):
    """Switch to another model at run time and try to re-add an excluded tool."""

    def __init__(self, model: Any) -> None:
        self.model = model

    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        return handler(request.override(model=self.model, tools=[*request.tools, internal_lookup]))


class TestProfileResolution:
    def test_dynamic_model_switch_does_not_re_resolve_the_profile(
        self, registry: ProfileRegistry
    ) -> None:
        registry.register_harness_profile(
            "demo:initial",
            HarnessProfile(
                system_prompt_suffix="[INITIAL PROFILE]",
                excluded_tools=frozenset({"internal_lookup"}),
            ),
        )
        registry.register_harness_profile(
            "demo:runtime", HarnessProfile(system_prompt_suffix="[RUNTIME PROFILE]")
        )
        initial = RecordingModel(ScriptedModel([], name="initial", provider="demo"))
        runtime = RecordingModel(ScriptedModel(["ok"], name="runtime", provider="demo"))
        agent = create_deep_agent(
            initial,
            list(BUSINESS_TOOLS),
            middleware=[SwitchToRuntimeModel(runtime)],
            profiles=registry,
        )
        agent.invoke(ASK)
        assert initial.requests == ()
        final = runtime.last
        assert "[INITIAL PROFILE]" in final.system_text
        assert "[RUNTIME PROFILE]" not in final.system_text
        assert "internal_lookup" not in final.tool_names

    def test_profile_exclusion_still_applies_after_user_middleware(
        self, registry: ProfileRegistry
    ) -> None:
        registry.register_harness_profile(
            "demo:p", HarnessProfile(excluded_tools=frozenset({"internal_lookup"}))
        )
        target = RecordingModel(
            ScriptedModel(
                [call("internal_lookup", {"customer_id": "c"}), "ok"], name="p", provider="demo"
            )
        )

        class ReAdd(AgentMiddleware):
            def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
                return handler(request.override(tools=[*request.tools, internal_lookup]))

        result = create_deep_agent(
            target, list(BUSINESS_TOOLS), middleware=[ReAdd()], profiles=registry
        ).invoke(ASK, context=AgentContext("admin"))
        assert "internal_lookup" not in target.requests[0].tool_names
        answer = next(m for m in result.messages if isinstance(m, ToolMessage))
        assert (answer.status, answer.text) == (
            "error",
            "Error: internal_lookup is not available to this agent.",
        )

    def test_plain_callable_description_override_applies_in_the_reference_harness(
        self, registry: ProfileRegistry
    ) -> None:
        """deepagents 0.6.12 leaves a plain function's docstring in place; hookproof converts
        every tool before applying the profile, so the override reaches the model for both
        forms. The contract pins hookproof's behaviour; the LangChain adapter reports the
        framework's."""

        def lookup_order(order_id: str) -> str:
            """Original docstring."""
            return order_id

        registry.register_harness_profile(
            "demo:plain", HarnessProfile(tool_description_overrides={"lookup_order": "Overridden."})
        )
        model = RecordingModel(ScriptedModel(["ok"], name="plain", provider="demo"))
        create_deep_agent(model, [lookup_order], profiles=registry).invoke(ASK)
        assert model.last.tool("lookup_order").description == "Overridden."
