"""``Agent.run``/``arun`` (hookproof's RunResult, what ``invoke`` returns on a runtime agent)
and ``with_message_name`` (LangChain's agent name on the agent's assistant messages)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hookproof.errors import InvalidInputError, MaxIterationsExceeded
from hookproof.messages import AssistantMessage
from hookproof.models import ScriptedModel, call
from hookproof.runtime import AgentMiddleware, InMemoryCheckpointer, RunResult, create_agent, tool


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


def _agent(*turns: Any, **options: Any) -> Any:
    return create_agent(ScriptedModel(list(turns)), [echo], **options)


def test_run_and_invoke_return_the_same_run_result() -> None:
    agent = _agent(call("echo", {"text": "a"}), "done", call("echo", {"text": "a"}), "done")
    ran = agent.run({"messages": [("user", "hi")]})
    invoked = agent.invoke({"messages": [("user", "hi")]})
    assert isinstance(ran, RunResult) and isinstance(invoked, RunResult)
    assert ran.text == invoked.text == "done"
    assert [m.role for m in ran.messages] == [m.role for m in invoked.messages]
    assert len(ran.final_requests) == 2


def test_arun_and_ainvoke_return_run_results_too() -> None:
    agent = _agent("one", "two")
    assert asyncio.run(agent.arun({"messages": [("user", "hi")]})).text == "one"
    assert asyncio.run(agent.ainvoke({"messages": [("user", "hi")]})).text == "two"


def test_run_keeps_a_thread_with_a_checkpointer() -> None:
    agent = _agent("one", "two", checkpointer=InMemoryCheckpointer())
    agent.run({"messages": [("user", "a")]}, thread_id="t")
    second = agent.run({"messages": [("user", "b")]}, thread_id="t")
    assert [m.text for m in second.messages] == ["a", "one", "b", "two"]


class _SeesNames(AgentMiddleware):
    def __init__(self) -> None:
        self.seen: list[str | None] = []

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        response = handler(request)
        self.seen += [m.name for m in response.result]
        return response


def test_with_message_name_names_the_models_answers_before_the_layers_see_them() -> None:
    seen = _SeesNames()
    agent = _agent(call("echo", {"text": "a"}), "done", middleware=[seen])
    named = agent.with_message_name("helper")
    result = named.run({"messages": [("user", "hi")]})
    assert [(m.role, m.name) for m in result.messages] == [
        ("user", None),
        ("assistant", "helper"),
        ("tool", "echo"),
        ("assistant", "helper"),
    ]
    assert seen.seen == ["helper", "helper"]  # as LangChain names them inside the handler


def test_with_message_name_leaves_the_original_agent_as_it_is() -> None:
    agent = _agent("plain", "named", "unnamed again")
    named = agent.with_message_name("helper")
    plain = agent.run({"messages": [("user", "hi")]})
    assert [m.name for m in plain.messages if isinstance(m, AssistantMessage)] == [None]
    result = named.run({"messages": [("user", "hi")]})
    assert [m.name for m in result.messages if isinstance(m, AssistantMessage)] == ["helper"]
    again = named.with_message_name(None).run({"messages": [("user", "hi")]})
    assert [m.name for m in again.messages if isinstance(m, AssistantMessage)] == [None]


def test_with_max_iterations_bounds_the_copy_only() -> None:
    turns = [call("echo", {"text": str(i)}) for i in range(3)] + ["done"]
    agent = _agent(*turns, *turns)
    bounded = agent.with_max_iterations(2)
    result = agent.run({"messages": [("user", "hi")]})
    assert (result.text, len(result.final_requests)) == ("done", 4)  # past the copy's bound
    with pytest.raises(MaxIterationsExceeded, match="max_iterations=2"):
        bounded.run({"messages": [("user", "hi")]})
    with pytest.raises(InvalidInputError, match="forbid every model call"):
        agent.with_max_iterations(0)
