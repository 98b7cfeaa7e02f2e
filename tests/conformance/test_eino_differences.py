"""hookproof.eino behaviours the differential against real Eino (tests/go) found wrong, each
pinned here without Go."""

from __future__ import annotations

from typing import Any

from hookproof.eino import BaseChatModelAgentMiddleware, ChatModelAgent
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.tools import tool


@tool
def search(q: str) -> str:
    """Search the docs."""
    return f"found {q}"


@tool
def lookup(q: str) -> str:
    """Look a customer up."""
    return f"customer {q}"


class RemovesEveryTool(BaseChatModelAgentMiddleware):
    def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
        return ctx, agent_ctx.override(tools=())


def test_before_agent_removing_every_tool_leaves_the_agents_own() -> None:
    # Eino passes the run's tools to the model and the ToolsNode only when there are some
    model = RecordingModel(ScriptedModel([call("search", {"q": "x"}), "done"]))
    agent = ChatModelAgent(model=model, tools=[search, lookup], handlers=[RemovesEveryTool()])
    run = agent.run([("user", "hi")])
    assert run.error is None
    assert [r.tool_names for r in model.requests] == [["lookup", "search"]] * 2
    assert run.messages[-2].text == "found x"


def test_an_invokable_tools_event_is_one_message_in_a_streaming_run() -> None:
    agent = ChatModelAgent(
        model=ScriptedModel([call("search", {"q": "x"}), "done"]), tools=[search]
    )
    tool_event = agent.run([("user", "hi")], enable_streaming=True).events[1]
    assert tool_event.kind == "tool_result"
    assert not tool_event.is_streaming and tool_event.chunks == ()


def test_an_unknown_tool_fails_the_step_before_any_call_runs() -> None:
    ran: list[str] = []

    @tool
    def audit(q: str) -> str:
        """Audit."""
        ran.append(q)
        return q

    model = ScriptedModel([[call("audit", {"q": "x"}), call("ghost", {})], "done"])
    run = ChatModelAgent(model=model, tools=[audit]).run([("user", "hi")])
    assert "tool ghost not found in toolsNode indexes" in str(run.error)
    assert ran == []  # Eino's ToolsNode finds every call's tool first


def test_a_failing_call_lets_the_others_of_its_message_run_first() -> None:
    ran: list[str] = []

    @tool
    def audit(q: str) -> str:
        """Audit."""
        ran.append(q)
        return q

    @tool
    def broken(q: str) -> str:
        """Always fails."""
        raise RuntimeError("disk full")

    model = ScriptedModel([[call("broken", {"q": "a"}), call("audit", {"q": "b"})], "done"])
    run = ChatModelAgent(model=model, tools=[broken, audit]).run([("user", "hi")])
    assert "disk full" in str(run.error)
    assert ran == ["b"]  # Eino's ToolsNode runs every call, then reports the first error


def test_a_pausing_call_lets_the_others_of_its_message_run_first() -> None:
    from hookproof.eino import InMemoryCheckpointer, interrupt

    ran: list[str] = []

    @tool
    def approve(q: str) -> str:
        """Needs a human."""
        return f"{q}: {interrupt('approve?')}"

    @tool
    def audit(q: str) -> str:
        """Audit."""
        ran.append(q)
        return q

    model = ScriptedModel([[call("approve", {"q": "a"}), call("audit", {"q": "b"})], "done"])
    agent = ChatModelAgent(model=model, tools=[approve, audit], checkpointer=InMemoryCheckpointer())
    first = agent.run([("user", "hi")], checkpoint_id="t")
    assert first.interrupted and ran == ["b"]  # Eino's ToolsNode runs it before pausing
    resumed = agent.resume("t", "yes")
    assert resumed.error is None and ran == ["b"]  # kept, not run again
    assert [m.text for m in resumed.messages if m.role == "tool"] == ["a: yes", "b"]
