"""Review of the bridge's speed work (wt-bridge-s15): LangChain middleware whose wrap hook
touches what its handler answered, run on LangChain's create_agent and on the reference
engine. Each case is one LangChain's own engine and main agree on."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.agents.middleware import AgentMiddleware, ModelResponse
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver

from hookproof.models import call
from hookproof.runtime import create_agent
from tests.adapters.engines import add, run_on_both, without_ids


def _both(middleware: Any, script: list[Any]) -> tuple[Any, Any]:
    def langchain_build(model: Any) -> Any:
        return langchain_create_agent(
            model, [add], middleware=middleware(), checkpointer=InMemorySaver()
        )

    def reference_build(model: Any) -> Any:
        return create_agent(model, [add], middleware=middleware())

    return run_on_both(langchain_build, reference_build, script=script)


def _messages(run: Any) -> list[Any]:
    assert run.error is None, run.error
    return [
        (m.role, m.text, dict(getattr(m, "metadata", {}) or {}))
        for m in map(without_ids, run.messages)
    ]


class TagsInPlace(AgentMiddleware):
    """Adds to the answer's additional_kwargs in place and returns the handler's response."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        response = handler(request)
        response.result[0].additional_kwargs["tag"] = "x"
        return response


class ContentInPlace(AgentMiddleware):
    """Changes the answer's content list in place."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        response = handler(request)
        message = response.result[0]
        if isinstance(message.content, list):
            message.content.append({"type": "text", "text": " appended"})
        return response


class ToolCallsInPlace(AgentMiddleware):
    """Drops the model's tool calls in place (a guard that strips a call)."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        response = handler(request)
        message = response.result[0]
        if isinstance(message, AIMessage) and message.tool_calls:
            message.tool_calls.clear()
        return response


class SecondOfTwo(AgentMiddleware):
    """Calls the handler twice and returns the first answer."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        first = handler(request)
        handler(request)
        return first


class Rewrapped(AgentMiddleware):
    """Returns a new ModelResponse holding the handler's messages list."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        response = handler(request)
        return ModelResponse(result=response.result, structured_response="S")


_SCRIPT = [call("add", {"a": 1, "b": 2}), "done", "spare", "spare"]


@pytest.mark.parametrize("middleware", [ContentInPlace, SecondOfTwo, Rewrapped])
def test_what_a_wrap_hook_returns_reaches_the_messages_as_on_langchain(middleware: Any) -> None:
    langchain, reference = _both(lambda: [middleware()], _SCRIPT)
    assert _messages(reference) == _messages(langchain)


@pytest.mark.parametrize("middleware", [TagsInPlace, ToolCallsInPlace])
def test_an_in_place_edit_of_the_handlers_answer_is_refused(middleware: Any) -> None:
    """LangChain lets the edit through; the bridge refuses it (locked views), on main and
    on the branch alike: the answer handed back as it came must not hide the edit."""
    _, reference = _both(lambda: [middleware()], _SCRIPT)
    assert type(reference.error).__name__ == "ImmutableError", reference.error
