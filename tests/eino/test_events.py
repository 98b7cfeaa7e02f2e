"""A run's events: iterating and stepping, descriptions, message ids, the layer an event is
credited to, and the trace of a failed run."""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.eino import (
    BaseChatModelAgentMiddleware,
)
from hookproof.messages import AssistantMessage
from hookproof.models import call
from tests.eino.helpers import agent_with, lookup, scripted, search


def test_a_run_can_be_iterated_again_and_stepped_like_eino() -> None:
    run = agent_with(scripted("a")).run([("user", "x")])
    assert list(run) == list(run) == list(run.events) and len(run) == 1
    assert run.next() == (run.events[0], True)
    assert run.next() == (None, False)


def test_a_tool_call_turn_describes_its_calls() -> None:
    run = agent_with(scripted(call("search", {"q": "x"}), "done")).run([("user", "x")])
    assert run.events[0].describe() == "model_output: calls search"


def test_events_and_interrupts_are_credited_to_the_layer_that_sent_them() -> None:
    from hookproof.eino import AgentEvent, send_event

    class Audit(BaseChatModelAgentMiddleware):
        def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
            def audited(ctx: Any, arguments: str) -> Any:
                result = endpoint(ctx, arguments)
                send_event(ctx, AgentEvent(custom="after"))
                return result

            return audited

    run = agent_with(scripted(call("search", {"q": "x"}), "ok"), handlers=[Audit()]).run(
        [("user", "x")]
    )
    sent = [e for e in run.trace if e.kind == "event" and e.data.get("kind") == "custom"]
    assert [e.middleware for e in sent] == ["Audit.tool_wrapper"]


def test_a_message_id_the_model_set_is_kept_and_matches_the_event() -> None:
    message = AssistantMessage.model_validate(
        {"content": [{"type": "text", "text": "hi"}], "additional_kwargs": {"_eino_msg_id": "m-7"}}
    )
    run = agent_with(scripted(message)).run([("user", "x")])
    assert run.events[0].message.additional_kwargs["_eino_msg_id"] == "m-7"  # type: ignore[union-attr]
    assert run.messages[-1].additional_kwargs["_eino_msg_id"] == "m-7"


def test_the_held_return_directly_event_comes_before_after_agent_events() -> None:
    from hookproof.eino import AgentEvent, send_event

    class Announce(BaseChatModelAgentMiddleware):
        def after_agent(self, ctx: Any, state: Any) -> Any:
            send_event(ctx, AgentEvent(custom="finished"))
            return ctx

    run = agent_with(
        scripted(call("search", {"q": "x"})), return_directly=["search"], handlers=[Announce()]
    ).run([("user", "x")])
    assert run.kinds() == ["model_output", "tool_result", "custom"]


def test_a_run_failing_in_before_agent_still_closes_its_trace() -> None:
    from hookproof.contracts import check_hook_order

    class Refuses(BaseChatModelAgentMiddleware):
        def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
            raise PermissionError("no")

    run = agent_with(scripted("x"), handlers=[Refuses()]).run([("user", "x")])
    last = [event for event in run.trace if event.kind == "agent"][-1]
    assert (last.hook, last.phase, last.data["error"]) == ("run", "error", "HandlerError")
    check_hook_order(run.trace)


@pytest.mark.parametrize("returns", ["search", "lookup"])
def test_calls_sharing_the_return_directly_calls_id_send_only_the_last_event(returns: str) -> None:
    # Eino holds events by call id: the later call's event replaces the earlier one's, and
    # the earlier result is never sent
    turn = [call("search", {"q": "a"}, id="same"), call("lookup", {"q": "b"}, id="same")]
    agent = agent_with(scripted(turn), tools=[search, lookup], return_directly=[returns])
    run = agent.run([("user", "x")])
    assert run.error is None
    assert [event.describe() for event in run] == [
        "model_output: calls search, lookup",
        "tool_result lookup: 'customer b'",
    ]


def test_calls_with_their_own_ids_each_send_their_event() -> None:
    turn = [call("search", {"q": "a"}), call("lookup", {"q": "b"})]
    agent = agent_with(scripted(turn), tools=[search, lookup], return_directly=["search"])
    assert [event.tool_name for event in agent.run([("user", "x")])] == [None, "lookup", "search"]
