"""A StopIteration raised by user code in a hook is reported as the run ends with it.

Leaving a coroutine, a StopIteration becomes RuntimeError("coroutine raised StopIteration")
(PEP 479); node hooks that the engine calls plainly under invoke() make the same conversion,
so the trace's closing ``run:error`` row and ``run.error`` name the same error. Eino's
``eino:init`` start hook runs user code when before_agent changed the tools (each tool's
``info()``), and an ``info()`` that calls ``next()`` on an empty iterator raises StopIteration.
"""

from __future__ import annotations

from typing import Any

from hookproof.eino import BaseChatModelAgentMiddleware, ChatModelAgent, ToolInfo
from hookproof.models import ScriptedModel


class EmptyCatalogueTool:
    """A tool whose info() looks itself up in an empty catalogue (next() on nothing)."""

    def info(self) -> ToolInfo:
        return next(iter([]))

    def invokable_run(self, ctx: Any, arguments: str) -> str:
        return "unused"


class AddsTheTool(BaseChatModelAgentMiddleware):
    def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
        return ctx, agent_ctx.override(tools=[*agent_ctx.tools, EmptyCatalogueTool()])


def _closing_error(run: Any) -> Any:
    closing = [e for e in run.result.trace if e.kind == "agent" and e.phase == "error"]
    assert len(closing) == 1, [e.describe() for e in run.result.trace]
    return closing[0].data["error"]


def test_the_trace_names_the_error_a_run_ends_with_when_a_start_hook_raises_stop_iteration() -> (
    None
):
    agent = ChatModelAgent(
        model=ScriptedModel(["done"]), instruction="You help.", handlers=[AddsTheTool()]
    )

    run = agent.run([("user", "hi")])

    assert type(run.error) is RuntimeError
    assert isinstance(run.error.__cause__, StopIteration)
    assert _closing_error(run) == type(run.error).__name__


def test_a_model_hook_raising_stop_iteration_is_traced_as_the_runs_error() -> None:
    """The same StopIteration from a state rewrite (a phase hook, still awaited through
    ``_nodes`` on the branch): the trace and the run agree on main and on the branch."""

    class Stops(BaseChatModelAgentMiddleware):
        def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            return next(iter([]))

    agent = ChatModelAgent(model=ScriptedModel(["done"]), instruction="x", handlers=[Stops()])

    run = agent.run([("user", "hi")])

    assert type(run.error) is RuntimeError
    assert _closing_error(run) == "RuntimeError"
