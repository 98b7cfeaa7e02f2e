"""A user's contract file for a deepagents app: 27 tests of the example support agent on
deepagents (two model tiers, a declared subagent), as a team would write them with hookproof's
checks. ``bench_deepagents_suite.py`` times it; run it alone with
``python -m pytest benchmarks/deepagents_suite -q -p no:randomly``."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("deepagents", reason="install hookproof[deepagents] to run this")

from hypothesis import given, settings

from hookproof import contracts
from hookproof.adapters.deepagents import BUILTIN_TOOL_NAMES
from hookproof.contracts import strategies
from hookproof.examples.dynamic_routing import AgentContext
from hookproof.examples.langchain_routing import (
    LangChainRouter,
    build_langchain_deep_agent,
)
from hookproof.models import call

TIERS = ("fast", "reasoning")
GUEST = AgentContext("guest", "fast")
ANALYST = AgentContext("analyst", "fast")
ADMIN = AgentContext("admin", "reasoning")
RESEARCHER = {
    "name": "researcher",
    "description": "Researches a question.",
    "system_prompt": "Research the question.",
    "tools": [],
}


def build(models: Any) -> Any:
    return build_langchain_deep_agent(models, subagents=[RESEARCHER])


@settings(max_examples=20)
@given(context=strategies.contexts(AgentContext, trusted=False))
def test_untrusted_contexts_get_no_more_than_a_guest(context: Any) -> None:
    contracts.check_fail_closed(build, context, least_privileged_context=GUEST, tiers=TIERS)


@settings(max_examples=10)
@given(context=strategies.contexts(AgentContext, trusted=False))
def test_untrusted_contexts_get_no_more_than_a_guest_through_a_script(context: Any) -> None:
    contracts.check_fail_closed(
        build, context, least_privileged_context=GUEST, tiers=TIERS, script=["hello", "done"]
    )


@pytest.mark.parametrize(
    "context",
    [
        None,
        "admin",
        {"role": "admin", "model_tier": "reasoning"},
        42,
        AgentContext("root", "fast"),
        AgentContext("admin", "turbo"),
        AgentContext("", "reasoning"),
        AgentContext("ADMIN", "reasoning"),
        AgentContext("analyst", "turbo"),
        AgentContext(None, None),  # type: ignore[arg-type]
        {"role": "guest"},
    ],
)
def test_a_forged_context_degrades_to_guest(context: Any) -> None:
    contracts.check_fail_closed(build, context, least_privileged_context=GUEST, tiers=TIERS)


def test_an_admin_delegates_nothing_it_lacks() -> None:
    contracts.check_delegation_contained(build, ADMIN, tiers=TIERS)


@pytest.mark.parametrize(
    "script",
    [["hello"], [call("public_search", {"query": "q"}), "done"], ["a", "b"], ["done"]],
)
def test_a_forged_context_degrades_through_each_script(script: Any) -> None:
    contracts.check_fail_closed(
        build, "admin", least_privileged_context=GUEST, tiers=TIERS, script=script
    )


@pytest.mark.parametrize("context", [GUEST, ANALYST, ADMIN])
def test_every_allowed_tool_runs(context: Any) -> None:
    contracts.check_allowed_calls_succeed(
        build, context, skip=BUILTIN_TOOL_NAMES, tiers=TIERS, max_examples=3
    )


@pytest.mark.parametrize("context", [GUEST, ADMIN])
def test_every_visible_tool_is_executable(context: Any) -> None:
    contracts.check_tool_closure(build, context=context, tiers=TIERS)


def test_the_injected_models_are_the_ones_called() -> None:
    contracts.check_injected_model_used(build, context=ADMIN, tiers=TIERS)


@pytest.mark.parametrize("context", [GUEST, ADMIN])
def test_the_router_keeps_the_tools_it_does_not_own(context: Any) -> None:
    contracts.check_tools_preserved(
        build,
        context,
        middleware=LangChainRouter,
        owned=["internal_lookup", "export_customer_report"],
        tiers=TIERS,
    )


def test_tool_names_are_unique() -> None:
    contracts.check_unique_tool_names(build, context=ADMIN, tiers=TIERS)
