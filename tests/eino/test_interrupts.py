"""Interrupts: where a run may pause (and where it may not), and what a resume restores."""

from __future__ import annotations

from typing import Any

from hookproof.eino import (
    BaseChatModelAgentMiddleware,
    InMemoryCheckpointer,
    interrupt,
)
from hookproof.errors import UsageError
from tests.eino.helpers import agent_with, scripted


class Approval(BaseChatModelAgentMiddleware):
    def __init__(self) -> None:
        self.answers: list[Any] = []

    def after_agent(self, ctx: Any, state: Any) -> Any:
        self.answers.append(interrupt({"publish": state.messages[-1].text}))
        return ctx


def test_interrupt_in_after_agent_pauses_and_resume_finishes() -> None:
    approval = Approval()
    agent = agent_with(scripted("draft"), handlers=[approval], checkpointer=InMemoryCheckpointer())
    paused = agent.run([("user", "write")], checkpoint_id="t")
    assert paused.kinds() == ["model_output", "interrupt"] and approval.answers == []
    done = agent.resume("t", "ship it")
    assert done.error is None and approval.answers == ["ship it"]


def test_interrupt_in_before_agent_is_refused_with_a_reason() -> None:
    class Early(BaseChatModelAgentMiddleware):
        def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
            interrupt("?")
            return ctx, agent_ctx

    run = agent_with(scripted("x"), handlers=[Early()], checkpointer=InMemoryCheckpointer()).run(
        [("user", "x")], checkpoint_id="t"
    )
    assert isinstance(run.error, UsageError)
    assert "cannot pause before it has started" in str(run.error)


def test_interrupt_without_a_checkpointer_says_how_to_pause() -> None:
    class Ask(BaseChatModelAgentMiddleware):
        def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            interrupt("?")
            return ctx, state

    run = agent_with(scripted("x"), handlers=[Ask()]).run([("user", "x")])
    assert "Ask.before_model_rewrite_state" in str(run.error)
    assert "run(..., checkpoint_id=...)" in str(run.error) and "resume()" in str(run.error)


class Tags(BaseChatModelAgentMiddleware):
    def __init__(self) -> None:
        self.seen: list[Any] = []

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        return ctx.with_value("tag", f"call-{len(state.messages)}"), state

    def after_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        answer = interrupt("check") if len(state.messages) == 2 else None
        self.seen.append((ctx.value("tag"), ctx.value("tenant"), answer))
        return ctx, state


def test_the_model_calls_ctx_chain_survives_a_resume() -> None:
    tags = Tags()
    agent = agent_with(scripted("answer"), handlers=[tags], checkpointer=InMemoryCheckpointer())
    assert agent.run([("user", "x")], {"tenant": "acme"}, checkpoint_id="t").interrupted
    done = agent.resume("t", "fine", {"tenant": "acme"})
    assert done.error is None
    assert tags.seen == [("call-1", "acme", "fine")]  # the tag set before the pause is back


def test_before_agent_ctx_chains_across_handlers_and_runs_on_resume() -> None:
    seen: list[Any] = []

    class Adds(BaseChatModelAgentMiddleware):
        def __init__(self, key: str) -> None:
            self.key = key

        def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
            seen.append((self.key, sorted(ctx.values)))
            return ctx.with_value(self.key, True), agent_ctx

    class Pause(BaseChatModelAgentMiddleware):
        def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            interrupt("?")
            return ctx, state

    agent = agent_with(
        scripted("ok"),
        handlers=[Adds("a"), Adds("b"), Pause()],
        checkpointer=InMemoryCheckpointer(),
    )
    agent.run([("user", "x")], checkpoint_id="t")
    agent.resume("t", "go")
    assert seen == [("a", []), ("b", ["a"]), ("a", []), ("b", ["a"])]


def test_a_resumed_turn_whose_calls_share_one_id_runs_the_paused_call() -> None:
    # Eino's ToolsNode keeps finished calls by id, so its resume hands the paused call the
    # other call's result and never runs it; here calls are kept by position.
    from hookproof.models import call
    from hookproof.tools import tool
    from tests.eino.helpers import search

    @tool
    def ask(q: str) -> str:
        """Ask a human."""
        return f"{q}: {interrupt('approve?')}"

    turn = [call("search", {"q": "a"}, id="same"), call("ask", {"q": "b"}, id="same")]
    agent = agent_with(
        scripted(turn, "done"), tools=[search, ask], checkpointer=InMemoryCheckpointer()
    )
    assert agent.run([("user", "x")], checkpoint_id="t").interrupted
    done = agent.resume("t", "yes")
    answers = [(m.tool_call_id, m.text) for m in done.messages if m.role == "tool"]
    assert done.error is None and answers == [("same", "found a"), ("same", "b: yes")]


def _two_askers() -> tuple[Any, list[str]]:
    from hookproof.models import call
    from hookproof.tools import tool

    ran: list[str] = []

    @tool
    def ask(q: str) -> str:
        """Ask a human."""
        ran.append(q)
        return f"{q}: {interrupt(f'approve {q}?')}"

    turn = [call("ask", {"q": "a"}), call("ask", {"q": "b"})]
    agent = agent_with(scripted(turn, "done"), tools=[ask], checkpointer=InMemoryCheckpointer())
    return agent, ran


def test_several_interrupts_of_one_message_pause_once_with_every_interrupt() -> None:
    # Eino's ToolsNode runs every call, then pauses once: one event, every interrupt in it
    agent, ran = _two_askers()
    paused = agent.run([("user", "x")], checkpoint_id="t")
    assert paused.kinds() == ["model_output", "interrupt"] and ran == ["a", "b"]
    action = paused.events[-1].action
    assert action is not None
    assert [item.value for item in action.interrupts] == ["approve a?", "approve b?"]
    assert action.interrupted == action.interrupts[0]


def test_one_resume_answers_every_interrupt_of_the_pause() -> None:
    agent, ran = _two_askers()
    agent.run([("user", "x")], checkpoint_id="t")
    done = agent.resume("t", "yes")
    assert done.error is None and not done.interrupted
    assert [m.text for m in done.messages if m.role == "tool"] == ["a: yes", "b: yes"]
    assert ran == ["a", "b", "a", "b"]  # each paused call runs again, once


def test_resume_targets_answer_interrupts_one_by_one_by_id() -> None:
    agent, _ = _two_askers()
    first, second = agent.run([("user", "x")], checkpoint_id="t").events[-1].action.interrupts  # type: ignore[union-attr]
    again = agent.resume("t", targets={second.id: "no"})
    assert [item.value for item in again.events[-1].action.interrupts] == ["approve a?"]  # type: ignore[union-attr]
    done = agent.resume("t", targets={again.events[-1].action.interrupted.id: "yes"})  # type: ignore[union-attr]
    assert [m.text for m in done.messages if m.role == "tool"] == ["a: yes", "b: no"]
    assert first.id != second.id


def test_resume_targets_refuse_an_id_that_is_not_pending() -> None:
    import pytest

    from hookproof.errors import InvalidInputError

    agent, _ = _two_askers()
    agent.run([("user", "x")], checkpoint_id="t")
    with pytest.raises(InvalidInputError, match="not pending there"):
        agent.resume("t", targets={"nope": "yes"})


def test_tool_infos_emptied_before_a_pause_are_refilled_after_it() -> None:
    # Eino's checkpoint keeps no empty list: the emptied tool infos come back nil after the
    # resume, and the next model call shows the run's tools again
    from hookproof.models import call
    from hookproof.tools import tool
    from tests.eino.helpers import search

    class DropsFirst(BaseChatModelAgentMiddleware):
        def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            infos = state.tool_infos
            return ctx, state.override(tool_infos=infos[1:]) if infos else state

    @tool
    def ask(q: str) -> str:
        """Ask a human."""
        return f"{q}: {interrupt('approve?')}"

    model = scripted(call("search", {"q": "a"}), call("ask", {"q": "b"}), "done")
    agent = agent_with(
        model, tools=[search, ask], handlers=[DropsFirst()], checkpointer=InMemoryCheckpointer()
    )
    assert agent.run([("user", "x")], checkpoint_id="t").interrupted
    assert agent.resume("t", "yes").error is None
    assert [request.tool_names for request in model.requests] == [["ask"], [], ["ask"]]
