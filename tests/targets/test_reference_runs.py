"""The reference target runs an agent without a checkpointer until one of its runs pauses:
what a run reports is what the same run with a checkpointer reports, and a run that pauses
is run again from the start on a fresh build, with one."""

from __future__ import annotations

from typing import Any

import pytest

from hookproof import contracts
from hookproof.errors import InterruptRaised
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


def _with_checkpointer(target: ReferenceTarget, context: Any, script: Any) -> TargetRun:
    """The run as the target made every run before: models given make it take the path
    with a checkpointer."""
    return target.run(context=context, models=target.models(script))


@pytest.mark.parametrize("script", SCRIPTS, ids=range(len(SCRIPTS)))
def test_a_run_without_a_checkpointer_shows_what_one_with_a_checkpointer_shows(
    script: Any,
) -> None:
    def build(models: Any) -> Any:
        return build_support_agent(models)

    target = ReferenceTarget(build, tiers=TIERS)
    for context in CONTEXTS:
        plain = target.run(context=context, script=script)
        assert _shown(plain) == _shown(_with_checkpointer(target, context, script))
        # the default input's messages are made once; a copy of it is made on every run
        copied = target.run(context=context, script=script, input=dict(DEFAULT_INPUT))
        assert _shown(plain) == _shown(copied)
    assert not target._pauses


class AskFirst(AgentMiddleware):
    """Asks a human before every tool call; the tool runs only on "approve"."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        answer = interrupt({"ask": request.tool_call.name})
        if answer != {"decisions": [{"type": "approve"}]}:
            raise PermissionError("not approved")
        return handler(request)


class Ledger:
    """A factory whose tool notes each call, counting its builds."""

    def __init__(self) -> None:
        self.builds, self.calls = 0, 0

    def __call__(self, model: Any) -> Any:
        self.builds += 1

        @tool
        def pay(amount: int) -> str:
            """Pay an amount."""
            self.calls += 1
            return f"paid {amount}"

        return create_agent(model, [pay], middleware=[AskFirst()])


PAY = [call("pay", {"amount": 3}), "done"]


def test_a_run_that_pauses_is_run_again_from_the_start_with_a_checkpointer() -> None:
    factory = Ledger()
    target = ReferenceTarget(factory)
    first = target.run(script=PAY)
    assert first.error is None and first.paused is None
    assert first.interrupts_resumed == 1 and factory.calls == 1
    assert len(first.final_requests) == 2  # the first try's model call is not among them
    assert factory.builds == 2  # the try without a checkpointer, then the run reported
    assert _shown(first) == _shown(_with_checkpointer(target, None, PAY))
    builds = factory.builds
    second = target.run(script=PAY)
    assert factory.builds == builds + 1  # this target's runs now start with a checkpointer
    assert _shown(second) == _shown(first)


def test_without_the_second_run_a_pause_would_be_reported_as_a_crash() -> None:
    # the buggy twin: the first try alone, as the target would report it without running
    # the pausing run again
    target = ReferenceTarget(Ledger())
    models = target.models(PAY)
    tried = target._run(target.agent(models), models, _settings(), None)
    assert isinstance(tried.error, InterruptRaised)
    assert target.run(script=PAY).error is None


def _settings() -> Any:
    from hookproof.targets import RunSettings

    return RunSettings(None, DEFAULT_INPUT, "approve", None)


def test_a_check_on_an_agent_that_pauses_answers_its_interrupts() -> None:
    factory = Ledger()
    report = contracts.check_tool_closure(factory)
    assert report.interrupts_resumed == 1
    assert report.tool_calls_executed == ("pay",)
    assert factory.calls == 1  # the tool waits for the answer: the first try never ran it
