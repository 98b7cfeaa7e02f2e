"""The reference target's runs: the default input's messages are made once and shared by
every run, which shows what a run on a copy of the input shows; a run that pauses is
answered on a checkpointer of its own, with the tools before the interrupt run once."""

from __future__ import annotations

from typing import Any

import pytest

from hookproof import contracts
from hookproof.examples.dynamic_routing import AgentContext, build_support_agent
from hookproof.models import call
from hookproof.runtime import AgentMiddleware, create_agent, interrupt, tool
from hookproof.targets import DEFAULT_INPUT, TargetRun
from hookproof.targets.reference import ReferenceTarget

TIERS = ("fast", "reasoning")
CONTEXTS = [
    None,
    "admin",
    {"role": "admin"},
    AgentContext("admin", "reasoning"),
    AgentContext("root", "fast"),
    AgentContext("guest", "fast"),
]
SCRIPTS: list[Any] = [
    None,
    [call("public_search", {"query": "q"}), "done"],
    [call("internal_lookup", {"customer_id": "c1"}), "done"],
    [call("no_such_tool", {}), "done"],
    [ValueError("the model failed")],
]


def _shown(run: TargetRun) -> tuple[Any, ...]:
    """Everything a check reads from a run (the trace's text, the requests' content)."""
    return (
        run.messages,
        run.trace.format() if run.trace is not None else None,
        [(request.model_dump(), request.summary()) for request in run.final_requests],
        run.called,
        repr(run.error),
        run.interrupts_resumed,
        run.paused,
        run.reached,
        sorted(run.visible_tools),
    )


@pytest.mark.parametrize("script", SCRIPTS, ids=range(len(SCRIPTS)))
def test_a_run_on_the_shared_default_input_shows_what_a_copy_of_it_shows(
    script: Any,
) -> None:
    def build(models: Any) -> Any:
        return build_support_agent(models)

    target = ReferenceTarget(build, tiers=TIERS)
    for context in CONTEXTS:
        plain = target.run(context=context, script=script)
        copied = target.run(context=context, script=script, input=dict(DEFAULT_INPUT))
        assert _shown(plain) == _shown(copied)


class AskFirst(AgentMiddleware):
    """Asks a human before every tool call; the tool runs only on "approve"."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        answer = interrupt({"ask": request.tool_call.name})
        if answer != {"decisions": [{"type": "approve"}]}:
            raise PermissionError("not approved")
        return handler(request)


class Ledger:
    """A factory whose tool counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, model: Any) -> Any:
        @tool
        def pay(amount: int) -> str:
            """Pay an amount."""
            self.calls += 1
            return f"paid {amount}"

        return create_agent(model, [pay], middleware=[AskFirst()])


PAY = [call("pay", {"amount": 3}), "done"]


def test_a_check_on_an_agent_that_pauses_answers_its_interrupts() -> None:
    factory = Ledger()
    report = contracts.check_tool_closure(factory)
    assert report.interrupts_resumed == 1
    assert report.tool_calls_executed == ("pay",)
    assert factory.calls == 1  # the tool runs once, after the answer
