"""A LangChain ``wrap_model_call`` on the reference engine that passes the model's answer
through unchanged leaves the model's own message in the history: the run shows what the same
agent without the middleware shows, down to each message's repr (but for the ids an agent
with LangChain middleware gives its messages)."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents.middleware import AgentMiddleware

from hookproof.models import ScriptedModel, call
from hookproof.runtime import create_agent, tool


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return "found:" + query


class PassThrough(AgentMiddleware):
    def wrap_model_call(self, request, handler):  # type: ignore[no-untyped-def]
        return handler(request)


class Rewrap(AgentMiddleware):
    """Hands back a copy of the answer: the bridge converts it, and says so in the repr."""

    def wrap_model_call(self, request, handler):  # type: ignore[no-untyped-def]
        response = handler(request)
        return response.result[0].model_copy()


def _messages(middleware: list[Any]) -> list[str]:
    script: list[Any] = [call("lookup", {"query": "q"}), "done"]
    agent = create_agent(ScriptedModel(script), [lookup], middleware=middleware)
    messages = agent.invoke({"messages": [("user", "hi")]}).messages
    return [re.sub(r"\bid='m\d+'", "id=None", repr(message)) for message in messages]


def test_a_pass_through_hook_leaves_the_models_own_answers() -> None:
    assert _messages([PassThrough()]) == _messages([])


def test_the_comparison_sees_an_answer_the_hook_replaced_with_a_copy() -> None:
    assert _messages([Rewrap()]) != _messages([])
