"""The profile part of the example: a harness profile, a provider profile, and the demo.

``run_demo()`` returns the eight lines the source article prints, computed from real runs:
the role-routed agent on the deep-agent harness for a guest and an analyst, the same agent
under a registered harness profile, and a model string resolved through provider profiles.
Everything is registered in an isolated registry, so running the demo changes nothing global.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from hookproof.examples.dynamic_routing import (
    BUSINESS_TOOL_NAMES,
    AgentContext,
    build_deep_support_agent,
)
from hookproof.harness import (
    GeneralPurposeSubagentProfile,
    HarnessProfile,
    ProfileRegistry,
    ProviderProfile,
    isolated_profiles,
)
from hookproof.models import RecordingModel, ScriptedModel, Turn, call

PROFILE_SUFFIX = "[PROFILE] Every conclusion must name the tool it came from."
PUBLIC_SEARCH_OVERRIDE = "[PROFILE] Searches public teaching data only."
DEMO_BASE_URL = "https://provider.example.invalid/v1"

DEMO_HARNESS_PROFILE = HarnessProfile(
    system_prompt_suffix=PROFILE_SUFFIX,
    tool_description_overrides={"public_search": PUBLIC_SEARCH_OVERRIDE},
    excluded_tools=frozenset({"execute", "internal_lookup"}),
    general_purpose_subagent=GeneralPurposeSubagentProfile(enabled=False),
)


def teaching_provider_kwargs(environ: Mapping[str, str] | None = None) -> dict[str, object]:
    """Read the provider's base URL at resolution time; fail before any client exists."""
    base_url = (os.environ if environ is None else environ).get("TEACHING_BASE_URL")
    if not base_url:
        raise RuntimeError("TEACHING_BASE_URL is required")
    return {"base_url": base_url}


class ProviderClient:
    """Stands in for a provider client: it only remembers how it was configured."""

    def __init__(self, model: str, **kwargs: Any) -> None:
        self.model_name = model
        self.kwargs = kwargs


def register_teaching_provider(
    registry: ProfileRegistry, environ: Mapping[str, str] | None = None
) -> None:
    registry.register_model_factory("teaching", ProviderClient)
    registry.register_provider_profile(
        "teaching",
        ProviderProfile(
            init_kwargs={"temperature": 0.7, "timeout": 30},
            init_kwargs_factory=lambda: teaching_provider_kwargs(environ),
        ),
    )
    registry.register_provider_profile(
        "teaching:demo-model", ProviderProfile(init_kwargs={"temperature": 0.2})
    )


def _pool(tool: str, args: dict[str, str]) -> dict[str, RecordingModel]:
    script: list[Turn] = [call(tool, args), "Here is what I found."]
    return {
        tier: RecordingModel(ScriptedModel(list(script), name=tier))
        for tier in ("fast", "reasoning")
    }


def _route(context: AgentContext, tool: str, args: dict[str, str]) -> tuple[str, list[str]]:
    pool = _pool(tool, args)
    agent = build_deep_support_agent(pool)
    agent.invoke({"messages": [("user", "Help me, please.")]}, context=context)
    used = pool["fast"] if pool["fast"].requests else pool["reasoning"]
    return used.name, sorted(set(used.requests[0].tool_names) & BUSINESS_TOOL_NAMES)


def _profiled(registry: ProfileRegistry) -> tuple[bool, list[str]]:
    registry.register_harness_profile("demo:profile-recording", DEMO_HARNESS_PROFILE)
    model = RecordingModel(ScriptedModel(["ok"], name="profile-recording", provider="demo"))
    agent = build_deep_support_agent(
        {"fast": model, "reasoning": model}, runtime_tools=False, profiles=registry
    )
    agent.invoke({"messages": [("user", "Export c-42.")]}, context=AgentContext("admin"))
    request = model.last
    return PROFILE_SUFFIX in request.system_text, request.tool_names


def demo_lines() -> list[str]:
    guest_model, guest_tools = _route(
        AgentContext("guest", "fast"), "public_search", {"query": "refunds"}
    )
    analyst_model, analyst_tools = _route(
        AgentContext("analyst", "reasoning"), "internal_lookup", {"customer_id": "c-42"}
    )
    with isolated_profiles() as registry:
        suffix_applied, visible = _profiled(registry)
        register_teaching_provider(registry, {"TEACHING_BASE_URL": DEMO_BASE_URL})
        client = registry.resolve_model("teaching:demo-model", timeout=45)
    return [
        f"guest_model={guest_model}",
        f"guest_business_tools={guest_tools}",
        f"analyst_model={analyst_model}",
        f"analyst_business_tools={analyst_tools}",
        f"profile_suffix_applied={suffix_applied}",
        f"profile_all_visible_tools={visible}",
        f"profile_visible_business_tools={sorted(set(visible) & BUSINESS_TOOL_NAMES)}",
        f"provider_kwargs={client.kwargs}",
    ]
