"""The example application on the real frameworks: LangChain create_agent and deepagents.

The same contracts as on the reference runtime, through the LangChain adapter, with the
final requests snapshotted per target (snapshots/contracts/test_langchain_app/).
"""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

pytest.importorskip("langchain", reason="install hookproof[langchain] for the framework targets")

from hypothesis import given, settings

from hookproof import contracts
from hookproof.adapters.langchain import RecordingChatModel, ScriptedChatModel
from hookproof.adapters.langchain.tracing import build_instrumented
from hookproof.contracts import strategies
from hookproof.examples.dynamic_routing import BUSINESS_TOOL_NAMES, AgentContext
from hookproof.examples.langchain_routing import (
    LangChainRouter,
    LangChainToolRegistry,
    build_langchain_agent,
    build_langchain_deep_agent,
)
from hookproof.models import call

TIERS = ("fast", "reasoning")
GUEST = AgentContext("guest", "fast")
DEEPAGENTS = pytest.mark.skipif(
    importlib.util.find_spec("deepagents") is None, reason="install hookproof[deepagents]"
)
TARGETS = [
    pytest.param(build_langchain_agent, id="langchain"),
    pytest.param(build_langchain_deep_agent, id="deepagents", marks=DEEPAGENTS),
]


def _pool(*turns: Any) -> dict[str, RecordingChatModel]:
    return {
        tier: RecordingChatModel(inner=ScriptedChatModel(script=list(turns), model_name=tier))
        for tier in TIERS
    }


@pytest.mark.parametrize("build", TARGETS)
@pytest.mark.parametrize(
    ("context", "tier", "tools"),
    [
        (AgentContext("guest", "fast"), "fast", ["public_search"]),
        (AgentContext("analyst", "reasoning"), "reasoning", ["internal_lookup", "public_search"]),
        (None, "fast", ["public_search"]),
    ],
    ids=["guest", "analyst", "missing-context"],
)
def test_role_routing(build: Any, context: Any, tier: str, tools: list[str]) -> None:
    pool = _pool("ok")
    build(pool).invoke({"messages": [("user", "help")]}, context=context)
    assert sorted(set(pool[tier].last.tool_names) & BUSINESS_TOOL_NAMES) == tools


@pytest.mark.parametrize("build", TARGETS)
def test_fails_closed_for_hostile_contexts(build: Any) -> None:
    @settings(max_examples=15, deadline=None)
    @given(context=strategies.contexts(AgentContext, trusted=False))
    def check(context: Any) -> None:
        contracts.check_fail_closed(build, context, least_privileged_context=GUEST, tiers=TIERS)

    check()


@pytest.mark.parametrize("build", TARGETS)
def test_runtime_tool_executes_and_guest_is_denied(build: Any) -> None:
    pool = _pool(call("calculate_tip", {"amount": 20}), "The tip is 3.00.")
    result = build(pool).invoke({"messages": [("user", "tip?")]}, context=GUEST)
    assert [m.content for m in result["messages"] if m.type == "tool"] == ["3.00"]
    denied = _pool(call("internal_lookup", {"customer_id": "c1"}), "never")
    with pytest.raises(PermissionError, match="'guest'"):
        build(denied).invoke({"messages": [("user", "look")]}, context=GUEST)


@pytest.mark.parametrize("build", TARGETS)
def test_injected_falsy_models_and_tool_closure(build: Any) -> None:
    contracts.check_injected_model_used(build, tiers=TIERS)
    contracts.check_tool_closure(build, context=AgentContext("admin"), tiers=TIERS)


def test_langchain_middleware_keep_requests_intact() -> None:
    pool = _pool("ok")
    for middleware in (LangChainRouter(pool), LangChainToolRegistry()):
        contracts.check_request_not_mutated(middleware)


@pytest.mark.parametrize("build", TARGETS)
@pytest.mark.parametrize("role", ["guest", "admin"])
def test_final_request_snapshot(build: Any, role: str, hookproof_snapshot: Any) -> None:
    pool = _pool(call("public_search", {"query": "refunds"}), "Here is what I found.")
    agent = build_instrumented(build, pool)  # so the snapshot says where each tool came from
    agent.invoke({"messages": [("user", "Help me, please.")]}, context=AgentContext(role))
    assert pool["fast"].last == hookproof_snapshot


@pytest.mark.parametrize("build", TARGETS)
def test_node_hook_order_on_the_framework(build: Any) -> None:
    from hookproof.contracts import as_target

    run = as_target(build, TIERS).run(
        context=AgentContext("admin"), script=[call("public_search", {"query": "q"}), "ok"]
    )
    assert run.trace is not None
    assert [e.label() for e in run.trace.select("model", "tool") if e.phase == "enter"] == [
        "model:enter",
        "tool:enter",
        "model:enter",
    ]
    layers = [
        e.middleware
        for e in run.trace.select("layer", hook="wrap_model_call")
        if e.phase == "enter"
    ]
    assert layers.index("LangChainRouter") < layers.index("LangChainToolRegistry")
    contracts.check_hook_order(run.trace)


@pytest.mark.parametrize("build", TARGETS)
def test_concurrent_runs_stay_isolated(build: Any) -> None:
    contexts = [AgentContext("guest"), AgentContext("admin"), AgentContext("analyst", "reasoning")]
    contracts.check_isolation(build, contexts, tiers=TIERS, modes=["threads"])


def test_scope_note_keeps_system_metadata() -> None:
    from hookproof.examples.langchain_routing import LangChainScopeNote

    contracts.check_metadata_preserved(LangChainScopeNote())


@DEEPAGENTS
def test_deepagents_profile_exclusion_holds_against_a_re_adding_middleware() -> None:
    from deepagents import HarnessProfile, register_harness_profile
    from langchain.agents.middleware import AgentMiddleware

    from hookproof.examples.langchain_routing import internal_lookup

    # A key no other test uses: deepagents' profile registry is process-wide.
    register_harness_profile(
        "hookproof-exclusion-contract",
        HarnessProfile(excluded_tools=frozenset({"internal_lookup"})),
    )

    class ReAdd(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request.override(tools=[*request.tools, internal_lookup]))

    def build(models: Any) -> Any:
        from deepagents import create_deep_agent

        for model in models.values():
            model.inner.provider = "hookproof-exclusion-contract"
        return create_deep_agent(
            model=models["fast"],
            tools=[internal_lookup],
            middleware=[ReAdd()],
            context_schema=AgentContext,
        )

    if _deepagents_version() < (0, 7):
        pytest.xfail(
            "deepagents 0.6.x hides an excluded tool from the model but still executes a call "
            "to it (found by this contract); 0.7 refuses the call"
        )
    contracts.check_exclusion_holds(
        build, {"internal_lookup"}, context=AgentContext("admin"), tiers=TIERS
    )


def _deepagents_version() -> tuple[int, ...]:
    from importlib.metadata import version

    return tuple(int(part) for part in version("deepagents").split(".")[:2] if part.isdigit())
