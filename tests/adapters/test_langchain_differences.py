"""Behaviour LangChain's own agent tests check, on LangChain's ``create_agent`` and on the
reference engine running the same LangChain middleware, tools and model through the bridge:
refusals with LangChain's exception type and words, invalid tool calls answered, a tool
parameter named ``runtime`` injected."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.agents.middleware import AgentMiddleware, ExtendedModelResponse
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.types import Command

from hookproof.adapters.langchain import ScriptedChatModel
from hookproof.errors import UnsupportedCommandError
from hookproof.models import call
from hookproof.runtime import create_agent

HELLO = {"messages": [HumanMessage("hello")]}


def _both(build: Any, **options: Any) -> tuple[Any, Any]:
    """The agent ``build(create_agent)`` makes on LangChain and on the reference engine."""
    return build(langchain_create_agent, **options), build(create_agent, **options)


def _error_of(agent: Any, *, ainvoke: bool = False) -> BaseException:
    with pytest.raises(Exception) as caught:  # noqa: PT011 - the type is what is compared
        if ainvoke:
            asyncio.run(agent.ainvoke(HELLO))
        else:
            agent.invoke(HELLO)
    return caught.value


# -- Commands a wrap_model_call cannot return --------------------------------------------


REFUSED_COMMANDS = {
    "goto-end": Command(goto="__end__"),
    "goto-tools": Command(goto="tools"),
    "resume": Command(resume="yes"),
    "graph": Command(graph=Command.PARENT, update={"messages": []}),
}


class Says(AgentMiddleware):  # type: ignore[misc]
    def __init__(self, command: Command[Any]) -> None:
        self.command = command

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return ExtendedModelResponse(model_response=handler(request), command=self.command)

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        response = await handler(request)
        return ExtendedModelResponse(model_response=response, command=self.command)


@pytest.mark.parametrize("ainvoke", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("name", sorted(REFUSED_COMMANDS))
def test_a_bridged_wrap_model_call_command_is_refused_with_langchains_words(
    name: str, ainvoke: bool
) -> None:
    """Command(goto="__end__") too: the bridge used to drop it, so the run went on."""

    def build(create: Any) -> Any:
        model = ScriptedChatModel(script=["answer"])
        return create(model, [], middleware=[Says(REFUSED_COMMANDS[name])])

    on_langchain, on_reference = _both(build)
    expected = _error_of(on_langchain, ainvoke=ainvoke)
    raised = _error_of(on_reference, ainvoke=ainvoke)
    assert type(expected) is NotImplementedError
    assert isinstance(raised, UnsupportedCommandError)
    assert isinstance(raised, NotImplementedError)
    langchains_sentence = str(expected).partition(".")[0] + "."
    assert langchains_sentence.startswith("Command ")
    assert str(raised).startswith(langchains_sentence)
    assert "Says.wrap_model_call returned a Command" in str(raised)


# -- a tool a middleware shows that nothing runs -------------------------------------------


@tool
def known(value: str) -> str:
    """A registered tool."""
    return value


@tool
def stranger(value: str) -> str:
    """A tool no one registered."""
    return value


class ShowsStranger(AgentMiddleware):  # type: ignore[misc]
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request.override(tools=[*request.tools, stranger]))


def test_a_tool_a_middleware_shows_and_nothing_runs_is_refused_with_langchains_words() -> None:
    def build(create: Any) -> Any:
        model = ScriptedChatModel(script=[call("known", {"value": "x"}), "done"])
        return create(model, [known], middleware=[ShowsStranger()])

    on_langchain, on_reference = _both(build)
    expected, raised = _error_of(on_langchain), _error_of(on_reference)
    assert type(expected) is ValueError and isinstance(raised, ValueError)
    for error in (expected, raised):
        assert str(error).startswith("Middleware added tools")
        assert "Unknown tools: ['stranger']" in str(error)
        assert "Registered tools: ['known']" in str(error)


# -- keep AIMessage importable for later cases ------------------------------------------------
_ = AIMessage
