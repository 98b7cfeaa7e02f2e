"""Review of wt-checkbody-s13: a check's run on a hookproof runtime agent first runs without a
checkpointer, and a run that pauses is run again from the start on a fresh build with one.

The try that paused is thrown away, but what it did is not: everything the application did
before the interrupt (tools that ran, hooks with effects outside the run) happened once more
than a run with a checkpointer from the start does. On main every run had a checkpointer
from the start, so each step ran once. These tests pin what main does.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from hookproof import contracts
from hookproof.models import call
from hookproof.runtime import AgentMiddleware, create_agent, interrupt, tool
from hookproof.targets import RunSettings, as_target

# wt-checkbody-s13 is in: a target may run a pausing run again from the start
RERUNS = "remodel" in {field.name for field in dataclasses.fields(RunSettings)}
rerun_defect = pytest.mark.xfail(
    RERUNS,
    strict=True,
    reason="review-s13: a check's run that pauses without a checkpointer is thrown away and "
    "run again from the start, so what it did before the interrupt happens twice",
)


class AskBeforePay(AgentMiddleware):
    """Asks a human before ``pay`` runs; other tools run at once."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        if request.tool_call.name == "pay":
            interrupt({"ask": "pay"})
        return handler(request)


class Shop:
    """A factory whose ``note`` tool writes to a ledger outside the agent (an audit log, a
    sandbox database): what a test of the application may look at after a check."""

    def __init__(self) -> None:
        self.ledger: list[str] = []

    def __call__(self, model: Any) -> Any:
        @tool
        def note(text: str) -> str:
            """Write a note to the ledger."""
            self.ledger.append(text)
            return "noted"

        @tool
        def pay(amount: int) -> str:
            """Pay an amount."""
            return f"paid {amount}"

        return create_agent(model, [note, pay], middleware=[AskBeforePay()])


NOTE_THEN_PAY = [call("note", {"text": "order 7"}), call("pay", {"amount": 3}), "done"]


@rerun_defect
def test_a_tool_that_ran_before_an_interrupt_runs_once_per_check_run() -> None:
    shop = Shop()
    run = as_target(shop).run(script=NOTE_THEN_PAY)
    assert run.error is None and run.interrupts_resumed == 1
    # main: the turn runs ``note``, pauses at ``pay``, the resume runs only ``pay``
    assert shop.ledger == ["order 7"]


class Once:
    """State of a router that fails open on the first model call without a trusted context:
    its table of anonymous sessions is filled lazily, at the first anonymous tool call (a
    warm-up bug), and until then an anonymous caller is treated as an
    admin. An admin's tool calls wait for a human's approval."""

    def __init__(self) -> None:
        self.anonymous_seen = False


def _support(state: Once) -> Any:
    class Router(AgentMiddleware):
        def _role(self, context: Any) -> str:
            if context is None:
                return "guest" if state.anonymous_seen else "admin"  # the warm-up bug
            return str(context.get("role", "guest"))

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            role = self._role(request.runtime.context)
            if role != "admin":
                request = request.override(tools=[t for t in request.tools if t.name != "refund"])
            return handler(request)

        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            role = self._role(request.runtime.context)
            if request.runtime.context is None:
                state.anonymous_seen = True  # the session table is filled at the first tool call
            if role == "admin":
                interrupt({"approve": request.tool_call.name})
            return handler(request)

    @tool
    def lookup(order: str) -> str:
        """Look up an order."""
        return f"order {order}"

    @tool
    def refund(order: str) -> str:
        """Refund an order (admins only)."""
        return f"refunded {order}"

    def build(model: Any) -> Any:
        return create_agent(model, [lookup, refund], middleware=[Router()])

    return build


LOOKUP = [call("lookup", {"order": "7"}), "done"]


@rerun_defect
def test_check_fail_closed_sees_a_first_anonymous_run_fail_open() -> None:
    build = _support(Once())
    # main: the anonymous run is shown the admin-only refund tool, a violation. With the
    # rerun, the thrown-away try warms the table, and the run reported is a guest's: a pass.
    with pytest.raises(AssertionError, match="refund"):
        contracts.check_fail_closed(
            build, None, least_privileged_context={"role": "guest"}, script=LOOKUP
        )


def test_the_fail_open_router_is_caught_when_warm_runs_come_first_too() -> None:
    """The twin: the same router, already warm, is a guest's: the check passes it (so the
    violation above is the first anonymous run's, not a broken test)."""
    warm = Once()
    warm.anonymous_seen = True
    report = contracts.check_fail_closed(
        _support(warm), None, least_privileged_context={"role": "guest"}, script=LOOKUP
    )
    assert report.runs == 2
