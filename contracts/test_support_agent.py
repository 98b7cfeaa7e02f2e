"""The support agent's contracts on the reference runtime, plus its reviewed final requests.

The behavioural contracts live in the package (``hookproof check`` runs them anywhere); this
module re-exports them and adds the snapshots reviewed in this repository.
"""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.examples.contracts.test_support_agent import *  # noqa: F403
from hookproof.examples.dynamic_routing import AgentContext, build_support_agent
from hookproof.models import RecordingModel, ScriptedModel, call


@pytest.mark.parametrize(
    ("role", "tier", "tool", "args"),
    [
        ("guest", "fast", "public_search", {"query": "refund policy"}),
        ("analyst", "reasoning", "internal_lookup", {"customer_id": "c-42"}),
        ("admin", "fast", "export_customer_report", {"customer_id": "c-42"}),
    ],
    ids=["guest", "analyst", "admin"],
)
def test_final_request_per_role(
    role: Any, tier: Any, tool: str, args: dict[str, str], hookproof_snapshot: Any
) -> None:
    script = [call(tool, args), "Here is what I found."]
    pool = {
        name: RecordingModel(ScriptedModel(list(script), name=name))
        for name in ("fast", "reasoning")
    }
    agent = build_support_agent(pool)
    agent.invoke({"messages": [("user", "Help me, please.")]}, context=AgentContext(role, tier))
    assert pool[tier].last == hookproof_snapshot


@pytest.mark.parametrize(
    ("role", "tier", "tool", "args"),
    [
        ("guest", "fast", "public_search", {"query": "refund policy"}),
        ("analyst", "reasoning", "internal_lookup", {"customer_id": "c-42"}),
        ("admin", "fast", "export_customer_report", {"customer_id": "c-42"}),
    ],
    ids=["guest", "analyst", "admin"],
)
def test_harness_final_request_per_role(
    role: Any, tier: Any, tool: str, args: dict[str, str], hookproof_snapshot: Any
) -> None:
    """The same application on the deep-agent harness: prompt sections and harness tools."""
    from hookproof.examples.dynamic_routing import build_deep_support_agent

    script = [call(tool, args), "Here is what I found."]
    pool = {
        name: RecordingModel(ScriptedModel(list(script), name=name))
        for name in ("fast", "reasoning")
    }
    agent = build_deep_support_agent(pool)
    agent.invoke({"messages": [("user", "Help me, please.")]}, context=AgentContext(role, tier))
    assert pool[tier].last == hookproof_snapshot
