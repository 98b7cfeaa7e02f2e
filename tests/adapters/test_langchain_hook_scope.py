"""A LangChain wrap hook on the reference engine runs in one scope that stands for three
(its node's channels, LangGraph's node config, the explanation of LangGraph's "outside of a
runnable context" error): an interrupt() inside the hook pauses the run and resumes it as on
LangChain's create_agent, sync and async, and a twin scope that lets LangGraph's interrupt
out unconverted is shown caught."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.types import Command as LCCommand
from langgraph.types import interrupt

import hookproof.adapters.langchain.bridge._hook_scope as scope_module
from hookproof.adapters.langchain import ScriptedChatModel
from hookproof.models import call
from hookproof.runtime import Command, create_agent

HI = {"messages": [("user", "hi")]}


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"found:{query}"


class AsksFirst(AgentMiddleware):  # type: ignore[type-arg]
    """Asks before each tool call, from inside wrap_tool_call, and notes the node it runs in."""

    def __init__(self) -> None:
        super().__init__()
        self.nodes: list[str] = []

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        self.nodes.append(get_config()["metadata"]["langgraph_node"])
        if interrupt({"allow": request.tool_call["name"]}) != "yes":
            raise RuntimeError("refused")
        return handler(request)

    async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
        self.nodes.append(get_config()["metadata"]["langgraph_node"])
        if interrupt({"allow": request.tool_call["name"]}) != "yes":
            raise RuntimeError("refused")
        return await handler(request)


def _build(factory: Any, asks: AsksFirst) -> Any:
    script = [call("lookup", {"query": "x"}, id="c1"), "done"]
    return factory(
        ScriptedChatModel(script), [lookup], middleware=[asks], checkpointer=InMemorySaver()
    )


def _texts(messages: list[Any]) -> list[str]:
    return [str(message.text) for message in messages]


def _on_langchain(asynchronous: bool) -> tuple[Any, list[str], list[str]]:
    asks = AsksFirst()
    agent, config = _build(langchain_create_agent, asks), {"configurable": {"thread_id": "t"}}
    if asynchronous:
        paused = asyncio.run(agent.ainvoke(HI, config))
        done = asyncio.run(agent.ainvoke(LCCommand(resume="yes"), config))
    else:
        paused = agent.invoke(HI, config)
        done = agent.invoke(LCCommand(resume="yes"), config)
    return [i.value for i in paused["__interrupt__"]], _texts(done["messages"]), asks.nodes


def _on_reference(asynchronous: bool) -> tuple[Any, list[str], list[str]]:
    asks = AsksFirst()
    agent = _build(create_agent, asks)
    if asynchronous:
        paused = asyncio.run(agent.ainvoke(HI, thread_id="t"))
        done = asyncio.run(agent.ainvoke(Command(resume="yes"), thread_id="t"))
    else:
        paused = agent.invoke(HI, thread_id="t")
        done = agent.invoke(Command(resume="yes"), thread_id="t")
    return [i.value for i in paused.interrupts], _texts(done.messages), asks.nodes


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_an_interrupt_in_a_wrap_hook_pauses_and_resumes_as_on_langchain(asynchronous: bool) -> None:
    reference = _on_reference(asynchronous)

    assert reference == _on_langchain(asynchronous)
    assert reference[0] == [{"allow": "lookup"}]
    assert reference[1][-2:] == ["found:x", "done"]


def test_the_comparison_catches_a_scope_that_lets_langgraphs_interrupt_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def unconverted(raised: Exception) -> Exception:
        return raised

    monkeypatch.setattr(scope_module, "engine_interrupt", unconverted)

    with pytest.raises(Exception, match="Interrupt"):
        _on_reference(False)
