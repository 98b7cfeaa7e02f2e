"""Tool search (spec section 8): tool_infos vs deferred_tool_infos, tool_search_tool and the
reference ToolSearchMiddleware."""

from __future__ import annotations

import json

import pytest

from hookproof.eino import ChatModelAgent, ChatModelAgentContext, RunContext
from hookproof.eino.toolsearch import SEARCH_INFO, ToolSearchMiddleware, search_tools
from hookproof.errors import UsageError
from hookproof.models import call
from hookproof.tools import tool
from tests.eino.helpers import agent_with, lookup, scripted, search


@tool
def refund_order(order_id: str) -> str:
    """Refund a customer order."""
    return f"refunded {order_id}"


@tool
def export_report(customer: str) -> str:
    """Export a customer report as CSV."""
    return f"report for {customer}"


DYNAMIC = [refund_order, export_report]


def test_search_by_selection_and_by_keywords() -> None:
    infos = [refund_order.schema, export_report.schema]
    assert search_tools("select:export_report, nope", infos) == ["export_report"]
    assert search_tools("customer", infos) == ["refund_order", "export_report"]  # ties: order
    assert search_tools("report customer", infos) == ["export_report", "refund_order"]
    assert search_tools("+csv customer", infos) == ["export_report"]
    assert search_tools("customer", infos, max_results=1) == ["refund_order"]
    assert search_tools("nothing matches", infos) == []


def test_dynamic_tools_are_hidden_until_a_search_loads_them() -> None:
    model = scripted(
        call("tool_search", {"query": "select:refund_order"}),
        call("refund_order", {"order_id": "o-1"}),
        "refunded",
    )
    agent = ChatModelAgent(model=model, tools=[search], handlers=[ToolSearchMiddleware(DYNAMIC)])
    run = agent.run([("user", "refund o-1")])
    assert run.error is None and run.text == "refunded"
    first, second, third = model.requests
    assert first.tool_names == ["search", "tool_search"]
    assert first.messages[-1].text.startswith("Deferred tools (their schemas are not loaded")
    assert "refund_order, export_report" in first.messages[-1].text
    assert json.loads(run.messages[3].text) == {"matches": ["refund_order"]}
    assert second.tool_names == ["refund_order", "search", "tool_search"]
    assert third.tool_names == second.tool_names
    reminders = [m for m in third.messages if m.text.startswith("Deferred tools")]
    assert len(reminders) == 1  # inserted once per run (a run-local flag)


def test_native_mode_moves_dynamic_tools_to_deferred_and_sets_the_search_tool() -> None:
    model = scripted(call("export_report", {"customer": "c-1"}), "done")
    middleware = ToolSearchMiddleware(DYNAMIC, use_model_tool_search=True)
    run = ChatModelAgent(model=model, tools=[search], handlers=[middleware]).run([("user", "x")])
    assert run.error is None
    first = model.requests[0]
    assert first.tool_names == ["search"]
    assert [tool["name"] for tool in first.model_settings["deferred_tools"]] == [
        "refund_order",
        "export_report",
    ]
    assert first.model_settings["tool_search_tool"]["name"] == SEARCH_INFO.name
    assert run.messages[-2].text == "report for c-1"  # a deferred tool still executes


def test_tool_search_needs_dynamic_tools() -> None:
    with pytest.raises(UsageError, match="at least one dynamic tool"):
        ToolSearchMiddleware([])


def test_tool_search_survives_arguments_that_are_not_an_object() -> None:
    middleware = ToolSearchMiddleware([lookup])
    model = scripted(call("tool_search", {"query": "lookup"}), "ok")
    run = agent_with(model, handlers=[middleware]).run([("user", "x")])
    assert run.error is None
    context = ChatModelAgentContext()
    search_tool = middleware.before_agent(RunContext(), context)[1].tools[0]
    assert json.loads(search_tool.invokable_run(RunContext(), "[1, 2]"))["matches"] == []
