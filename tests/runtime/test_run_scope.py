"""Run-scoped state keys (``Annotated[..., UntrackedValue]``): a thread's checkpoint never holds
them, so each invoke, and each resume, starts without them, as in LangGraph; the other keys
carry on along the thread."""

from __future__ import annotations

from typing import Annotated, Any, NotRequired

from hookproof.models import ScriptedModel, call
from hookproof.runtime import (
    AgentMiddleware,
    AgentState,
    Command,
    InMemoryCheckpointer,
    UntrackedValue,
    create_agent,
    interrupt,
    tool,
)


class CallCounts(AgentState[Any]):
    run_calls: NotRequired[Annotated[int, UntrackedValue]]
    thread_calls: NotRequired[int]


class CountCalls(AgentMiddleware):
    """Counts model calls per run and per thread, and notes what each call saw before."""

    state_schema = CallCounts

    def __init__(self) -> None:
        self.seen: list[tuple[int | None, int | None]] = []

    def before_model(self, state: Any, runtime: Any) -> dict[str, int]:
        run, thread = state.get("run_calls"), state.get("thread_calls")
        self.seen.append((run, thread))
        return {"run_calls": (run or 0) + 1, "thread_calls": (thread or 0) + 1}


@tool
def ask(question: str) -> str:
    """Ask a human."""
    return str(interrupt(question))


def _agent(script: list[Any], counter: AgentMiddleware, checkpointer: Any) -> Any:
    return create_agent(
        ScriptedModel(script), [ask], middleware=[counter], checkpointer=checkpointer
    )


def test_a_run_scoped_key_starts_afresh_on_every_invoke_of_a_thread() -> None:
    counter, saver = CountCalls(), InMemoryCheckpointer()
    agent = _agent(["one", "two"], counter, saver)
    agent.invoke({"messages": [("user", "hi")]}, thread_id="t")
    second = agent.invoke({"messages": [("user", "again")]}, thread_id="t")
    assert counter.seen == [(None, None), (None, 1)]
    assert (second.state["run_calls"], second.state["thread_calls"]) == (1, 2)
    assert "run_calls" not in saver.get("t").values  # type: ignore[union-attr]


def test_a_run_scoped_key_starts_afresh_on_resume_as_in_langgraph() -> None:
    counter, saver = CountCalls(), InMemoryCheckpointer()
    agent = _agent([call("ask", {"question": "ok?"}), "done"], counter, saver)
    paused = agent.invoke({"messages": [("user", "hi")]}, thread_id="t")
    assert paused.interrupts and "run_calls" not in saver.get("t").values  # type: ignore[union-attr]
    resumed = agent.invoke(Command(resume="yes"), thread_id="t")
    assert counter.seen == [(None, None), (None, 1)]
    assert (resumed.state["run_calls"], resumed.state["thread_calls"]) == (1, 2)
