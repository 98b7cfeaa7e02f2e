"""Human review inside subagents: they inherit the main agent's interrupt_on (or have their
own), a review in a subagent pauses the main run, and resuming the main run answers it
without running the subagent's earlier steps again."""

from __future__ import annotations

from typing import Any

from hookproof.harness import create_deep_agent
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.runtime import Command, InMemoryCheckpointer, tool

ran: list[str] = []


@tool
def delete(path: str) -> str:
    """Delete a file."""
    ran.append(path)
    return f"deleted {path}"


def _agent(model: Any, **options: Any) -> Any:
    return create_deep_agent(
        model,
        [delete],
        checkpointer=InMemoryCheckpointer(),
        interrupt_on={"delete": True},
        **options,
    )


def _script() -> RecordingModel:
    # main: delegate; subagent: delete, then answer; main: answer
    turns = [
        call("task", {"description": "clean up", "subagent_type": "general-purpose"}),
        call("delete", {"path": "/tmp/x"}),
        "cleaned",
        "all done",
    ]
    return RecordingModel(ScriptedModel(turns))


def test_a_review_inside_a_subagent_pauses_the_main_run() -> None:
    ran.clear()
    model = _script()
    agent = _agent(model)
    paused = agent.invoke({"messages": [("user", "clean")]}, thread_id="t")
    [pending] = paused.interrupts
    assert pending.value["action_requests"][0]["args"] == {"path": "/tmp/x"}
    assert ran == [] and len(model.requests) == 2
    done = agent.invoke(Command(resume={"decisions": [{"type": "approve"}]}), thread_id="t")
    assert done.interrupts == () and done.text == "all done"
    assert ran == ["/tmp/x"]
    # the subagent resumed after its review: its first model call was not made again
    assert len(model.requests) == 4
    assert [m.text for m in done.messages if m.role == "tool"] == ["cleaned"]


def test_a_rejected_review_inside_a_subagent_keeps_the_tool_from_running() -> None:
    ran.clear()
    agent = _agent(_script())
    agent.invoke({"messages": [("user", "clean")]}, thread_id="t")
    rejection = {"decisions": [{"type": "reject", "message": "keep it"}]}
    done = agent.invoke(Command(resume=rejection), thread_id="t")
    assert ran == [] and done.text == "all done"


def test_a_subagents_own_interrupt_on_replaces_the_main_agents() -> None:
    ran.clear()
    unreviewed = {
        "name": "general-purpose",
        "description": "General work.",
        "system_prompt": "Help.",
        "interrupt_on": {},
    }
    agent = _agent(_script(), subagents=[unreviewed])
    done = agent.invoke({"messages": [("user", "clean")]}, thread_id="t")
    assert done.interrupts == () and ran == ["/tmp/x"]
