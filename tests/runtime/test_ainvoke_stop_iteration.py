"""A sync wrap hook that raises StopIteration fails invoke() with RuntimeError("coroutine
raised StopIteration"), and ainvoke() the same way whether the hook's outcome comes back
within the event loop thread's brief wait or through a future (which refuses StopIteration
as an exception: handed over as one, it was never settled and the run hung)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from hookproof._engine import workers
from hookproof.models import ScriptedModel
from hookproof.runtime import AgentMiddleware, create_agent


def _agent(pause: float) -> Any:
    class Stops(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            time.sleep(pause)
            raise StopIteration("no more")

    return create_agent(ScriptedModel(["ok"]), [], middleware=[Stops()])


async def _ainvoke(agent: Any) -> Any:
    # bounded: the defect is a run that never ends
    return await asyncio.wait_for(agent.ainvoke({"messages": [("user", "hi")]}), 5)


def test_invoke_fails_with_runtime_error() -> None:
    with pytest.raises(RuntimeError, match="StopIteration"):
        _agent(0.0).invoke({"messages": [("user", "hi")]})


def test_ainvoke_of_a_longer_hook_fails_as_invoke_does() -> None:
    with pytest.raises(RuntimeError, match="StopIteration"):
        asyncio.run(_ainvoke(_agent(0.05)))


@pytest.mark.parametrize("brief", [0.0, 10.0], ids=["through-the-future", "within-the-wait"])
def test_ainvoke_fails_as_invoke_does_on_either_way_back(
    brief: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workers, "BRIEF_SECONDS", brief)
    with pytest.raises(RuntimeError, match="StopIteration"):
        asyncio.run(_ainvoke(_agent(0.0)))


def _fused_agent() -> Any:
    """Outermost wrap hooks sync-only on both chains: ainvoke's turn takes one helper visit
    (fused.py), which turns the hook's StopIteration into RuntimeError itself."""
    from hookproof.runtime import tool

    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        return query

    class Stops(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            raise StopIteration("no more")

    class Passes(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

    return create_agent(ScriptedModel(["ok"]), [lookup], middleware=[Stops(), Passes()])


def _failure(run: Any) -> tuple[Any, ...]:
    with pytest.raises(RuntimeError) as raised:
        run()
    cause = raised.value.__cause__
    return str(raised.value), type(cause), str(cause), raised.value.__suppress_context__


def test_a_fused_turn_fails_as_a_coroutine_does_cause_included() -> None:
    agent = _fused_agent()
    assert agent._engine.chains.fused is not None  # the fused turn is what this test runs
    awaited = _failure(lambda: asyncio.run(_ainvoke(agent)))
    assert awaited == ("coroutine raised StopIteration", StopIteration, "no more", True)
    assert awaited == _failure(lambda: asyncio.run(_ainvoke(_agent(0.0))))
