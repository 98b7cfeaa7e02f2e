"""The role-routed support agent's contracts on the reference runtime (the article, 3-5).

These are the contracts the foundation can state directly; the harness and profile ones
join when the deep-agent harness lands.
"""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.context import ToolRuntime
from hookproof.errors import DuplicateToolError
from hookproof.examples.dynamic_routing import (
    BUSINESS_TOOL_NAMES,
    AgentContext,
    RequestRouter,
    build_models,
    build_support_agent,
    internal_lookup,
    public_search,
)
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.runtime import ModelRequest, ModelResponse, create_agent

ASK = {"messages": [("user", "help me")]}


def _pool(*turns: Any) -> dict[str, RecordingModel]:
    return {
        tier: RecordingModel(ScriptedModel(list(turns), name=tier))
        for tier in ("fast", "reasoning")
    }


def _business(model: RecordingModel) -> list[str]:
    return sorted(set(model.last.tool_names) & BUSINESS_TOOL_NAMES)


@pytest.mark.parametrize(
    ("context", "tier", "tools"),
    [
        (AgentContext("guest", "fast"), "fast", ["public_search"]),
        (AgentContext("analyst", "reasoning"), "reasoning", ["internal_lookup", "public_search"]),
        (AgentContext("admin", "fast"), "fast", sorted(BUSINESS_TOOL_NAMES)),
    ],
)
def test_role_decides_model_and_business_tools(
    context: AgentContext, tier: str, tools: list[str]
) -> None:
    pool = _pool("ok")
    build_support_agent(pool).invoke(ASK, context=context)
    assert _business(pool[tier]) == tools
    other = "fast" if tier == "reasoning" else "reasoning"
    assert pool[other].requests == ()


@pytest.mark.parametrize(
    "context",
    [None, {"role": "admin"}, AgentContext("root", "turbo"), "admin"],  # type: ignore[arg-type]
    ids=["missing", "dict", "unknown-role-and-tier", "string"],
)
def test_untrusted_or_missing_context_fails_closed_to_guest(context: Any) -> None:
    pool = _pool("ok")
    build_support_agent(pool).invoke(ASK, context=context)
    assert _business(pool["fast"]) == ["public_search"]
    assert pool["reasoning"].requests == ()


def test_router_handles_a_request_without_runtime() -> None:
    pool = _pool("ok")
    seen: list[ModelRequest] = []

    def handler(request: ModelRequest) -> ModelResponse:
        seen.append(request)
        return ModelResponse(result=())

    request = ModelRequest.create(model=pool["fast"], tools=[public_search, internal_lookup])
    RequestRouter(pool).wrap_model_call(request, handler)
    assert [t.name for t in seen[0].tools] == ["public_search"]
    assert seen[0].model is pool["fast"]


def test_model_pool_must_be_complete() -> None:
    with pytest.raises(ValueError, match="both 'fast' and 'reasoning'"):
        RequestRouter({"fast": RecordingModel(ScriptedModel([]))})


def test_falsy_injected_model_is_used() -> None:
    class Falsy(RecordingModel):
        def __bool__(self) -> bool:
            return False

    fast = Falsy(ScriptedModel(["ok"], name="fast"))
    models = build_models(fast=fast)
    assert models["fast"] is fast
    build_support_agent(models).invoke(ASK, context=AgentContext())
    assert len(fast.requests) == 1


def test_permission_denied_on_the_direct_tool_path() -> None:
    runtime: ToolRuntime[AgentContext] = ToolRuntime(context=AgentContext("guest"), state={})
    with pytest.raises(PermissionError, match="'guest'"):
        internal_lookup.run({"customer_id": "c1"}, runtime)


def test_permission_denied_through_the_full_agent() -> None:
    pool = _pool(call("internal_lookup", {"customer_id": "c1"}), "never")
    with pytest.raises(PermissionError, match="'guest'"):
        build_support_agent(pool).invoke(ASK, context=AgentContext("guest"))


def test_runtime_two_hook_tool_really_executes() -> None:
    pool = _pool(call("calculate_tip", {"amount": 20}), "tip is 3.00")
    result = build_support_agent(pool).invoke(ASK, context=AgentContext())
    assert result.messages[2].text == "3.00"
    assert "calculate_tip" in pool["fast"].requests[0].tool_names


def test_wrap_layers_nest_router_outermost() -> None:
    result = build_support_agent(_pool("ok")).invoke(ASK)
    assert result.trace.labels("layer") == [
        "RequestRouter.wrap_model_call:enter",
        "RuntimeToolRegistry.wrap_model_call:enter",
        "RuntimeToolRegistry.wrap_model_call:exit",
        "RequestRouter.wrap_model_call:exit",
    ]


def test_duplicate_tool_names_fail_at_start_up() -> None:
    with pytest.raises(DuplicateToolError, match="public_search"):
        create_agent(ScriptedModel([]), [public_search, public_search])
