"""arun under asyncio: each run on a helper thread reused from run to run, the event loop
free meanwhile, concurrent runs never waiting for each other, context variables carried."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

from hookproof.eino import ChatModelAgent
from hookproof.messages import ToolMessage
from hookproof.models import ScriptedModel, call
from hookproof.tools import tool

WAIT_SECONDS = 10.0  # only reached when the behaviour under test is broken
REQUEST: contextvars.ContextVar[str] = contextvars.ContextVar("REQUEST", default="unset")


def agent_calling(work: Any) -> ChatModelAgent:
    """One call of ``step`` (which runs ``work()``), then "done"; safe for concurrent runs."""

    @tool
    def step() -> str:
        """Does the work under test."""
        return str(work())

    def turn(request: Any) -> Any:
        if any(isinstance(message, ToolMessage) for message in request.messages):
            return "done"
        return call("step", {}, id="call_0")

    return ChatModelAgent(model=ScriptedModel(turn), tools=[step])


def test_concurrent_aruns_run_at_once_so_runs_waiting_for_each_other_finish() -> None:
    barrier = threading.Barrier(5, timeout=WAIT_SECONDS)
    agent = agent_calling(lambda: barrier.wait() >= 0)

    async def main() -> list[Any]:
        return await asyncio.gather(*(agent.arun([("user", "hi")]) for _ in range(5)))

    runs = asyncio.run(main())
    assert [run.error for run in runs] == [None] * 5
    assert [run.text for run in runs] == ["done"] * 5


def test_the_event_loop_is_free_while_an_arun_works() -> None:
    released = threading.Event()
    agent = agent_calling(lambda: released.wait(WAIT_SECONDS))

    async def main() -> Any:
        pending = asyncio.ensure_future(agent.arun([("user", "hi")]))
        await asyncio.sleep(0)  # the loop runs this while the tool waits
        released.set()
        return await pending

    run = asyncio.run(main())
    tool_result = next(event for event in run if event.kind == "tool_result")
    assert tool_result.message is not None and tool_result.message.text == "True"


def test_aruns_one_after_another_reuse_helper_threads() -> None:
    threads: list[threading.Thread] = []
    existing: list[set[threading.Thread]] = []
    agent = agent_calling(lambda: threads.append(threading.current_thread()))

    async def main() -> None:
        for _ in range(3):
            existing.append(set(threading.enumerate()))
            await agent.arun([("user", "hi")])

    asyncio.run(main())
    assert len(threads) == 3
    assert threading.main_thread() not in threads
    # Runs after the first start no thread: each goes to one already there (another test's
    # idle helper may be the one picked, so which one is not pinned).
    assert threads[1] in existing[1] and threads[2] in existing[2]


def test_arun_sees_the_callers_context_variables() -> None:
    seen: list[str] = []
    agent = agent_calling(lambda: seen.append(REQUEST.get()))

    async def one(name: str) -> None:
        REQUEST.set(name)
        await agent.arun([("user", "hi")])

    async def main() -> None:
        await asyncio.gather(one("a"), one("b"))

    asyncio.run(main())
    assert sorted(seen) == ["a", "b"]


def test_aresume_answers_a_pause_of_several_interrupts_by_target() -> None:
    import asyncio

    from hookproof.eino import InMemoryCheckpointer, interrupt
    from hookproof.models import call
    from hookproof.tools import tool
    from tests.eino.helpers import agent_with, scripted

    @tool
    def ask(q: str) -> str:
        """Ask a human."""
        return f"{q}: {interrupt('?')}"

    turn = [call("ask", {"q": "a"}), call("ask", {"q": "b"})]
    agent = agent_with(scripted(turn, "done"), tools=[ask], checkpointer=InMemoryCheckpointer())
    paused = asyncio.run(agent.arun([("user", "x")], checkpoint_id="t"))
    first, second = paused.events[-1].action.interrupts  # type: ignore[union-attr]
    done = asyncio.run(agent.aresume("t", targets={first.id: "yes", second.id: "no"}))
    assert [m.text for m in done.messages if m.role == "tool"] == ["a: yes", "b: no"]
