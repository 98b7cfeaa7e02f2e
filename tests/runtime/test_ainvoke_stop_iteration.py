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
