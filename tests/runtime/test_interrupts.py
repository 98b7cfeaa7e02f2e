"""Interrupt, checkpoint and resume; threads keep their conversation."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hookproof.errors import AmbiguousResumeError, HookproofError, InvalidInputError, UsageError
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.runtime import (
    AgentMiddleware,
    Command,
    InMemoryCheckpointer,
    create_agent,
    interrupt,
    tool,
)
from tests.helpers import lookup

HI = {"messages": [("user", "hi")]}


class Approve(AgentMiddleware):
    """Asks a human before any lookup call; 'no' removes the call and answers for the tool."""

    def after_model(self, state: Any, runtime: Any) -> Any:
        last = state["messages"][-1]
        if not any(c.name == "lookup" for c in getattr(last, "tool_calls", ())):
            return None
        answer = interrupt({"tool_calls": [c.name for c in last.tool_calls]})
        if answer == "yes":
            return None
        from hookproof.messages import ToolMessage

        rejected = [
            ToolMessage(content="rejected by a human", tool_call_id=c.id or "", status="error")
            for c in last.tool_calls
        ]
        return {"messages": rejected}


class Counter(AgentMiddleware):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def before_model(self, state: Any, runtime: Any) -> None:
        self.seen.append("before_model")


def _agent(model: Any, checkpointer: Any = None, **extra: Any) -> Any:
    return create_agent(
        model,
        [lookup],
        middleware=[Approve()],
        checkpointer=checkpointer or InMemoryCheckpointer(),
        **extra,
    )


def test_interrupt_pauses_and_resume_approves() -> None:
    model = RecordingModel(ScriptedModel([call("lookup", {"query": "x"}), "done"]))
    agent = _agent(model)
    paused = agent.invoke(HI, thread_id="t1")
    assert paused.interrupts[0].value == {"tool_calls": ["lookup"]}
    assert paused.interrupts[0].source == "Approve.after_model"
    assert [m.role for m in paused.messages] == ["user", "assistant"]
    assert "interrupt:update" in paused.trace.labels("agent")[-1]
    resumed = agent.invoke(Command(resume="yes"), thread_id="t1")
    assert resumed.interrupts == ()
    assert resumed.text == "done"
    assert [m.text for m in resumed.messages if m.role == "tool"] == ["found:x"]
    assert len(model.requests) == 2
    assert resumed.trace.count("model") == 1


def test_resume_reject_answers_for_the_tool() -> None:
    agent = _agent(ScriptedModel([call("lookup", {"query": "x"}), "ok, not looked up"]))
    agent.invoke(HI, thread_id="t")
    result = agent.invoke(Command(resume="no"), thread_id="t")
    tool_messages = [m for m in result.messages if m.role == "tool"]
    assert [(m.text, m.status) for m in tool_messages] == [("rejected by a human", "error")]
    assert result.trace.count("tool") == 0


def test_thread_keeps_the_conversation_between_invokes() -> None:
    model = RecordingModel(ScriptedModel(["first", "second"]))
    agent = create_agent(model, checkpointer=InMemoryCheckpointer())
    agent.invoke(HI, thread_id="a")
    agent.invoke({"messages": [("user", "again")]}, thread_id="a")
    assert [m.text for m in model.last.messages] == ["hi", "first", "again"]


def test_threads_are_isolated() -> None:
    model = RecordingModel(ScriptedModel(lambda request: f"seen {len(request.messages)}"))
    agent = create_agent(model, checkpointer=InMemoryCheckpointer())
    agent.invoke(HI, thread_id="a")
    assert agent.invoke(HI, thread_id="b").text == "seen 1"
    assert agent.invoke(HI, thread_id="a").text == "seen 3"


def test_interrupt_without_checkpointer_is_explained() -> None:
    agent = create_agent(
        ScriptedModel([call("lookup", {"query": "x"})]), [lookup], middleware=[Approve()]
    )
    with pytest.raises(HookproofError, match="checkpointer=InMemoryCheckpointer"):
        agent.invoke(HI)


def test_resume_errors() -> None:
    agent = _agent(ScriptedModel([call("lookup", {"query": "x"}), "done"]))
    with pytest.raises(InvalidInputError, match="no pending interrupt"):
        agent.invoke(Command(resume="yes"), thread_id="fresh")
    agent.invoke(HI, thread_id="t")
    with pytest.raises(InvalidInputError, match="paused at an interrupt"):
        agent.invoke(HI, thread_id="t")
    with pytest.raises(UsageError, match="only to resume"):
        agent.invoke(Command(resume="yes"))


def test_a_tool_can_interrupt_and_resume_under_ainvoke() -> None:
    @tool
    def transfer(amount: int) -> str:
        """Move money after confirmation."""
        return "moved" if interrupt(f"move {amount}?") == "ok" else "cancelled"

    agent = create_agent(
        ScriptedModel([call("transfer", {"amount": 5}), "finished"]),
        [transfer],
        checkpointer=InMemoryCheckpointer(),
    )
    paused = asyncio.run(agent.ainvoke(HI, thread_id="t"))
    assert (paused.interrupts[0].value, paused.interrupts[0].source) == ("move 5?", "tool transfer")
    resumed = asyncio.run(agent.ainvoke(Command(resume="ok"), thread_id="t"))
    assert [m.text for m in resumed.messages if m.role == "tool"] == ["moved"]
    assert resumed.text == "finished"


def test_resume_reruns_only_the_interrupting_hook_onwards() -> None:
    counter = Counter()
    model = ScriptedModel([call("lookup", {"query": "x"}), "done"])
    agent = create_agent(
        model, [lookup], middleware=[counter, Approve()], checkpointer=InMemoryCheckpointer()
    )
    agent.invoke(HI, thread_id="t")
    assert counter.seen == ["before_model"]
    agent.invoke(Command(resume="yes"), thread_id="t")
    assert counter.seen == ["before_model", "before_model"]
    assert model.calls == 2


def test_a_step_may_interrupt_twice_and_each_resume_answers_the_next() -> None:
    answers: list[Any] = []

    class TwoQuestions(AgentMiddleware):
        def before_model(self, state: Any, runtime: Any) -> None:
            answers.append((interrupt("name?"), interrupt("age?")))

    agent = create_agent(
        ScriptedModel(["done"]), middleware=[TwoQuestions()], checkpointer=InMemoryCheckpointer()
    )
    assert agent.invoke(HI, thread_id="t").interrupts[0].value == "name?"
    assert agent.invoke(Command(resume="Ada"), thread_id="t").interrupts[0].value == "age?"
    final = agent.invoke(Command(resume=36), thread_id="t")
    assert final.interrupts == ()
    assert final.text == "done"
    assert answers == [("Ada", 36)]


def test_resume_does_not_rerun_tool_calls_that_finished() -> None:
    charged: list[int] = []

    @tool
    def charge(amount: int) -> str:
        """Charge the card."""
        charged.append(amount)
        return "charged"

    @tool
    def ask(question: str) -> str:
        """Ask the human."""
        return str(interrupt(question))

    agent = create_agent(
        ScriptedModel([[call("charge", {"amount": 5}), call("ask", {"question": "ok?"})], "done"]),
        [charge, ask],
        checkpointer=InMemoryCheckpointer(),
    )
    agent.invoke(HI, thread_id="t")
    result = agent.invoke(Command(resume="yes"), thread_id="t")
    assert charged == [5]
    assert [m.text for m in result.messages if m.role == "tool"] == ["charged", "yes"]


def test_answered_calls_send_the_run_back_to_the_model() -> None:
    from hookproof.messages import ToolMessage

    class AnswerAll(AgentMiddleware):
        def after_model(self, state: Any, runtime: Any) -> Any:
            last = state["messages"][-1]
            replies = [
                ToolMessage(content="skipped", tool_call_id=c.id or "", status="error")
                for c in last.tool_calls
            ]
            return {"messages": replies} if replies else None

    model = RecordingModel(ScriptedModel([call("lookup", {"query": "x"}), "after skip"]))
    result = create_agent(model, [lookup], middleware=[AnswerAll()]).invoke(HI)
    assert result.text == "after skip"
    assert len(model.requests) == 2
    assert result.trace.count("tool") == 0


@tool
def ask(question: str) -> str:
    """Ask a human."""
    return f"{question}={interrupt(question)}"


def _asking_agent() -> Any:
    turn = [call("ask", {"question": "p"}, id="c1"), call("ask", {"question": "q"}, id="c2")]
    return create_agent(ScriptedModel([turn, "done"]), [ask], checkpointer=InMemoryCheckpointer())


def test_every_call_of_a_turn_interrupts_in_one_pause_with_its_own_id() -> None:
    agent = _asking_agent()
    paused = agent.invoke(HI, thread_id="t")
    assert [item.value for item in paused.interrupts] == ["p", "q"]
    ids = [item.id for item in paused.interrupts]
    assert len(set(ids)) == 2 and all(len(i) == 32 and int(i, 16) >= 0 for i in ids)
    assert ids == [item.id for item in _asking_agent().invoke(HI, thread_id="t").interrupts]
    assert paused.trace.events[-1].data["sources"] == ("tool ask", "tool ask")
    done = agent.invoke(Command(resume={ids[0]: "yes", ids[1]: "no"}), thread_id="t")
    assert [m.text for m in done.messages if m.role == "tool"] == ["p=yes", "q=no"]
    assert done.text == "done"


def test_one_answer_for_several_interrupts_is_refused_and_the_pause_kept() -> None:
    agent = _asking_agent()
    paused = agent.invoke(HI, thread_id="t")
    with pytest.raises(AmbiguousResumeError, match="multiple pending interrupts") as caught:
        agent.invoke(Command(resume="yes"), thread_id="t")
    assert isinstance(caught.value, RuntimeError)
    assert paused.interrupts[0].id in str(caught.value)
    first = paused.interrupts[0].id
    partly = agent.invoke(Command(resume={first: "yes"}), thread_id="t")
    # the answered call finished and shows; the other still waits, under the same id
    assert [m.text for m in partly.messages if m.role == "tool"] == ["p=yes"]
    assert [item.id for item in partly.interrupts] == [paused.interrupts[1].id]
    done = agent.invoke(Command(resume="no"), thread_id="t")
    assert [m.text for m in done.messages if m.role == "tool"] == ["p=yes", "q=no"]


class AskEveryTurn(AgentMiddleware):
    """Asks a human before every model call and keeps each answer."""

    def __init__(self) -> None:
        self.answers: list[Any] = []

    def before_model(self, state: Any, runtime: Any) -> None:
        self.answers.append(interrupt("go on?"))


def test_a_later_step_of_the_same_hook_asks_afresh_after_a_resume() -> None:
    # The answer belongs to the step that paused: the same hook on the next model turn is
    # another step, so it pauses again and its own answer is the next resume's, not "a".
    asker = AskEveryTurn()
    agent = create_agent(
        ScriptedModel([call("lookup", {"query": "x"}), "done"]),
        [lookup],
        middleware=[asker],
        checkpointer=InMemoryCheckpointer(),
    )
    assert agent.invoke(HI, thread_id="t").interrupts
    second = agent.invoke(Command(resume="a"), thread_id="t")
    assert [item.value for item in second.interrupts] == ["go on?"]
    assert agent.invoke(Command(resume="b"), thread_id="t").text == "done"
    assert asker.answers == ["a", "b"]
