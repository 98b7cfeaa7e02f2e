"""The final request per role, against reviewed snapshots; the role filter's contracts."""

import pytest
from hookproof import contracts
from hookproof.models import call

from support_desk import ADMIN_ONLY, Ctx, RoleFilter, build_agent

SCRIPT = [call("lookup", {"query": "refunds"}), "Done."]


@pytest.mark.hookproof(script=SCRIPT)
@pytest.mark.parametrize("role", ["guest", "admin"])
def test_final_request_per_role(recording_model, hookproof_snapshot, role):
    agent = build_agent(recording_model)
    result = agent.invoke({"messages": [("user", "Refunds?")]}, context=Ctx(role))
    assert result.text == "Done."
    assert recording_model.last == hookproof_snapshot


def test_guests_fail_closed_and_never_see_refund():
    guest = Ctx("guest")
    contracts.check_fail_closed(build_agent, Ctx("intruder"), least_privileged_context=guest)
    contracts.check_tools_preserved(build_agent, guest, middleware=RoleFilter, owned=ADMIN_ONLY)


def test_the_role_filter_keeps_requests_intact():
    contracts.check_request_not_mutated(RoleFilter(), context=Ctx("admin"))
