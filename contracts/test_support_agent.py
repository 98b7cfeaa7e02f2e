"""The support agent's contracts on the reference runtime, plus its reviewed final requests.

The behavioural contracts live in the package (``hookproof check`` runs them anywhere); this
module re-exports them and adds the snapshots reviewed in this repository.
"""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.examples.contracts.test_support_agent import *  # noqa: F403
from hookproof.examples.dynamic_routing import (
    AgentContext,
    build_deep_support_agent,
    build_support_agent,
)
from hookproof.models import RecordingModel, ScriptedModel, call

ROLES = [
    pytest.param("guest", "fast", "public_search", {"query": "refund policy"}, id="guest"),
    pytest.param("analyst", "reasoning", "internal_lookup", {"customer_id": "c-42"}, id="analyst"),
    pytest.param("admin", "fast", "export_customer_report", {"customer_id": "c-42"}, id="admin"),
]
BUILDERS = [
    pytest.param(build_support_agent, id="runtime"),
    pytest.param(build_deep_support_agent, id="harness"),
]


@pytest.mark.parametrize("build", BUILDERS)
@pytest.mark.parametrize(("role", "tier", "tool", "args"), ROLES)
def test_final_request_per_role(
    build: Any, role: Any, tier: Any, tool: str, args: dict[str, str], hookproof_snapshot: Any
) -> None:
    """What the model finally receives, per role, on the plain runtime and on the harness."""
    script = [call(tool, args), "Here is what I found."]
    pool = {
        name: RecordingModel(ScriptedModel(list(script), name=name))
        for name in ("fast", "reasoning")
    }
    build(pool).invoke(
        {"messages": [("user", "Help me, please.")]}, context=AgentContext(role, tier)
    )
    assert pool[tier].last == hookproof_snapshot
