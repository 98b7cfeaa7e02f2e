"""The agent ``on_reference_engine`` builds shows a compiled graph's structure and is a Runnable.

Code written for LangChain reads what ``create_agent`` compiled (``agent.nodes["tools"]``,
``agent.channels``, ``get_input_jsonschema()``) and puts the agent where a Runnable goes (a
node of a LangGraph graph, from which a tool hands off with ``Command(graph=PARENT)``). Each
case builds the same factory on LangChain and on the reference engine and compares.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, NotRequired

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain_core.messages import BaseMessage, ToolMessage
from langchain_core.runnables import Runnable
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command

from hookproof.adapters.langchain import (
    LangChainShapedAgent,
    ScriptedChatModel,
    on_reference_engine,
)
from hookproof.errors import ParentCommandError, UsageError
from hookproof.models import call
from hookproof.runtime import create_agent as hookproof_create_agent


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def transfer_to_billing(tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Hand the conversation to the billing agent."""
    answer = ToolMessage(content="transferred", tool_call_id=tool_call_id)
    return Command(goto="billing", graph=Command.PARENT, update={"messages": [answer]})


class _NotesState(AgentState):
    notes: NotRequired[list[str]]


class _Notes(AgentMiddleware):
    state_schema = _NotesState

    def before_model(self, state: Any, runtime: Any) -> None:
        return None


def _app(model: Any, tools: Any = (add,)) -> Any:
    return langchain_create_agent(model, list(tools), middleware=[_Notes()])


def _both(script: Any, tools: Any = (add,)) -> tuple[Any, Any]:
    graph = _app(ScriptedChatModel(script), tools)
    return graph, on_reference_engine(_app)(ScriptedChatModel(script), tools)


def _shown(messages: list[BaseMessage]) -> list[tuple[str, Any]]:
    return [(type(m).__name__, m.content) for m in messages]


def test_structure_reads_answer_as_the_compiled_graph_does() -> None:
    graph, agent = _both(["hi"])
    assert sorted(agent.nodes) == sorted(graph.nodes)
    assert "_Notes.before_model" in agent.nodes
    assert sorted(agent.nodes["tools"].bound._tools_by_name) == ["add"]
    assert sorted(agent.channels) == sorted(graph.channels)
    assert "notes" in agent.channels
    assert agent.stream_channels == graph.stream_channels
    assert agent.get_input_jsonschema() == graph.get_input_jsonschema()
    assert agent.get_output_jsonschema() == graph.get_output_jsonschema()
    assert type(agent.builder) is type(graph.builder)


def _compared(value: Any) -> Any:
    if isinstance(value, type) and hasattr(value, "model_json_schema"):
        return value.model_json_schema()
    if hasattr(value, "__next__"):
        return list(value)
    return value


def test_every_structural_name_is_answered_by_langchains_graph() -> None:
    graph, agent = _both(["hi"])
    structure = agent.langchain_graph()
    assert type(structure) is type(graph)
    for name in LangChainShapedAgent.STRUCTURAL_NAMES:
        mine, theirs = getattr(agent, name), getattr(structure, name)
        if name.startswith("get_"):
            mine, theirs = mine(), theirs()
        assert _compared(mine) == _compared(theirs), name


def test_the_structure_is_built_once_and_runs_stay_on_the_engine() -> None:
    _, agent = _both([call("add", {"a": 1, "b": 2}), "three"])
    configured = agent.with_config({"tags": ["x"]})
    assert configured.langchain_graph() is agent.langchain_graph()
    result = agent.run({"messages": [("user", "1+2?")]})
    assert result.text == "three"  # a hookproof RunResult: the engine ran, not the graph


def test_an_agent_not_built_from_create_agents_arguments_has_no_structure() -> None:
    native = hookproof_create_agent(ScriptedChatModel(["hi"]))
    agent = LangChainShapedAgent.of(native)
    with pytest.raises(UsageError, match="no LangChain graph"):
        _ = agent.nodes
    with pytest.raises(UsageError, match="no LangChain graph"):
        agent.get_graph()


def _parent(node: Any) -> Any:
    visited: list[str] = []

    def billing(state: dict[str, Any]) -> dict[str, Any]:
        visited.append("billing")
        return {}

    parent = StateGraph(MessagesState)
    parent.add_node("front_desk", node)
    parent.add_node("billing", billing)
    parent.add_edge(START, "front_desk")
    parent.add_edge("front_desk", END)
    parent.add_edge("billing", END)
    return parent.compile(), visited


def test_the_agent_is_a_runnable_a_langgraph_graph_runs_as_a_node() -> None:
    graph, agent = _both([call("add", {"a": 1, "b": 2}), "three"])
    assert isinstance(agent, Runnable)
    results = []
    for node in (graph, agent):
        parent, _ = _parent(node)
        results.append(parent.invoke({"messages": [("user", "1+2?")]}))
    assert _shown(results[1]["messages"]) == _shown(results[0]["messages"])
    assert results[1]["messages"][-1].content == "three"


def _handoff_script() -> list[Any]:
    return [call("transfer_to_billing", {})]


@pytest.mark.parametrize("invoked", ["as the node", "inside a node"])
def test_a_parent_command_from_a_tool_hands_off_in_the_graph_running_the_agent(
    invoked: str,
) -> None:
    outcomes = []
    for agent in _both(_handoff_script(), tools=[transfer_to_billing]):
        node = agent if invoked == "as the node" else (lambda state, a=agent: a.invoke(state))
        parent, visited = _parent(node)
        result = parent.invoke({"messages": [("user", "my bill?")]})
        outcomes.append((visited, _shown(result["messages"])))
    assert outcomes[1] == outcomes[0]
    assert outcomes[1][0] == ["billing"]
    assert outcomes[1][1][-1] == ("ToolMessage", "transferred")


def test_a_parent_command_hands_off_when_the_graph_runs_the_agent_async() -> None:
    _, agent = _both(_handoff_script(), tools=[transfer_to_billing])
    parent, visited = _parent(agent)
    result = asyncio.run(parent.ainvoke({"messages": [("user", "my bill?")]}))
    assert visited == ["billing"]
    assert result["messages"][-1].content == "transferred"


def test_a_parent_command_at_the_top_level_is_still_refused() -> None:
    _, agent = _both(_handoff_script(), tools=[transfer_to_billing])
    with pytest.raises(ParentCommandError, match="runs at the top level"):
        agent.invoke({"messages": [("user", "my bill?")]})


def test_a_parent_command_inside_another_reference_run_is_still_refused() -> None:
    _, inner = _both(_handoff_script(), tools=[transfer_to_billing])

    @tool
    def ask_front_desk(question: str) -> str:
        """Ask the front desk agent."""
        return str(inner.invoke({"messages": [("user", question)]})["messages"][-1].content)

    outer = on_reference_engine(_app)(
        ScriptedChatModel([call("ask_front_desk", {"question": "my bill?"})]), [ask_front_desk]
    )
    with pytest.raises(ParentCommandError, match="runs at the top level"):
        outer.invoke({"messages": [("user", "help")]})
