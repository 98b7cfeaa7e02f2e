"""``hookproof demo``: the support agent run for a guest and an analyst on scripted models."""

from __future__ import annotations

from hookproof.examples.support_agent import (
    BUSINESS_TOOL_NAMES,
    AgentContext,
    build_support_agent,
)
from hookproof.models import RecordingModel, ScriptedModel, Turn, call
from hookproof.runtime import RunResult


def _run_as(context: AgentContext, tool_name: str) -> tuple[str, list[str], RunResult]:
    args = {"query": "refund policy"} if tool_name == "public_search" else {"customer_id": "c-42"}
    script: list[Turn] = [call(tool_name, args), "Here is what I found."]
    fast = RecordingModel(ScriptedModel(list(script), name="fast"))
    reasoning = RecordingModel(ScriptedModel(list(script), name="reasoning"))
    agent = build_support_agent({"fast": fast, "reasoning": reasoning})
    result = agent.invoke({"messages": [("user", "What is the refund policy?")]}, context=context)
    used = fast if fast.requests else reasoning
    business = sorted(set(used.last.tool_names) & BUSINESS_TOOL_NAMES)
    return used.name, business, result


def run_demo(*, show_trace: bool = True) -> str:
    """Run both scenarios and return the report (summary lines, then the guest's trace)."""
    guest_model, guest_tools, guest = _run_as(AgentContext("guest", "fast"), "public_search")
    analyst_model, analyst_tools, _ = _run_as(
        AgentContext("analyst", "reasoning"), "internal_lookup"
    )
    lines = [
        f"guest_model={guest_model}",
        f"guest_business_tools={guest_tools}",
        f"analyst_model={analyst_model}",
        f"analyst_business_tools={analyst_tools}",
        f"guest_answer={guest.text!r}",
    ]
    if show_trace:
        lines += ["", "guest trace:", guest.trace.format()]
    return "\n".join(lines)
