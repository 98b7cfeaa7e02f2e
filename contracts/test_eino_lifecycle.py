"""The Eino-dialect support agent's contracts, plus its reviewed final requests per role.

The behavioural contracts live in the package (``hookproof check`` runs them anywhere); this
module re-exports them and adds the snapshots reviewed in this repository.
"""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.eino import RunContext
from hookproof.examples.contracts.test_eino_lifecycle import *  # noqa: F403
from hookproof.examples.eino_support import ROLE_TOOLS, build_eino_support_agent
from hookproof.models import RecordingModel, ScriptedModel, call

FIRST_TOOL = {
    "guest": ("public_search", {"query": "refund policy"}),
    "analyst": ("internal_lookup", {"customer_id": "c-42"}),
    "admin": ("internal_lookup", {"customer_id": "c-42"}),
}


@pytest.mark.parametrize("role", sorted(ROLE_TOOLS))
def test_eino_final_request_per_role(role: str, hookproof_snapshot: Any) -> None:
    """What the model finally receives on its second call, per role."""
    tool, args = FIRST_TOOL[role]
    model = RecordingModel(ScriptedModel([call(tool, args), "Here you are."], name="support"))
    run = build_eino_support_agent(model).run(
        [("user", "Help me, please.")], RunContext({"role": role})
    )
    assert run.error is None
    assert model.last == hookproof_snapshot
