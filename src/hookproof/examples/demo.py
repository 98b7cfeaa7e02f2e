"""``hookproof demo``: the article's eight result lines, optionally with a run's trace."""

from __future__ import annotations

from hookproof.examples.dynamic_routing import AgentContext, build_deep_support_agent
from hookproof.examples.profile_demo import demo_lines
from hookproof.models import RecordingModel, ScriptedModel, Turn, call


def guest_trace() -> str:
    """The trace of the guest's run on the deep-agent harness."""
    script: list[Turn] = [call("public_search", {"query": "refunds"}), "Here is what I found."]
    model = RecordingModel(ScriptedModel(script, name="fast"))
    agent = build_deep_support_agent({"fast": model, "reasoning": model})
    result = agent.invoke({"messages": [("user", "Help me, please.")]}, context=AgentContext())
    return result.trace.format()


def run_demo(*, show_trace: bool = False) -> str:
    lines = demo_lines()
    if show_trace:
        lines += ["", "guest trace:", guest_trace()]
    return "\n".join(lines)
