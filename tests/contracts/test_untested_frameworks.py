"""No vacuous pass on LangChain, deepagents and the Eino dialect: human-in-the-loop reviews
are answered in each framework's own decision format and the check goes on; node-hook-only
middleware is checked, not waved through."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run this")

from langchain.agents import create_agent
from langchain.agents.middleware import (
    AgentMiddleware,
    HumanInTheLoopMiddleware,
)
from langchain_core.messages import HumanMessage, RemoveMessage
from langchain_core.messages import ToolMessage as LCToolMessage
from langchain_core.tools import tool
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from hookproof import contracts
from hookproof.contracts import ContractViolation, UntestedError

EXCLUDED = {"delete_customer", "export_data"}
REVIEW = {"delete_customer": True, "export_data": True}


@dataclass(frozen=True)
class Ctx:
    role: str


@tool
def public_search(query: str) -> str:
    """Search the public knowledge base."""
    return f"public:{query}"


@tool
def delete_customer(customer_id: str) -> str:
    """Delete a customer record."""
    return f"deleted {customer_id}"


@tool
def export_data(table: str) -> str:
    """Export a table."""
    return f"exported {table}"


TOOLS = [public_search, delete_customer, export_data]


def _guest(runtime: Any) -> bool:
    return getattr(getattr(runtime, "context", None), "role", "guest") != "admin"


class HidesOnly(AgentMiddleware):  # type: ignore[type-arg]
    """Buggy twin: hides admin tools from a guest's model but runs a call to them anyway."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        if _guest(request.runtime):
            request = request.override(
                tools=[t for t in request.tools if t.name == "public_search"]
            )
        return handler(request)


class HidesAndRefuses(HidesOnly):
    """Fixed twin: also refuses a guest's call to an admin tool."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        if _guest(request.runtime) and request.tool_call["name"] != "public_search":
            return LCToolMessage(
                content="not available", tool_call_id=request.tool_call["id"], status="error"
            )
        return handler(request)


def _langchain(filter_: Any, checkpointer: Any = None) -> Any:
    middleware = [filter_, HumanInTheLoopMiddleware(interrupt_on=REVIEW)]

    def build(model: Any) -> Any:
        return create_agent(
            model, TOOLS, middleware=middleware, context_schema=Ctx, checkpointer=checkpointer
        )

    return build


@pytest.mark.parametrize("with_checkpointer", [False, True])
def test_langchain_review_is_answered_and_the_hiding_only_filter_is_caught(
    with_checkpointer: bool,
) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    saver = InMemorySaver() if with_checkpointer else None
    with pytest.raises(ContractViolation) as caught:
        contracts.check_exclusion_holds(
            _langchain(HidesOnly(), saver), EXCLUDED, context=Ctx("guest")
        )
    assert "excluded tool(s) ['delete_customer'] executed" in str(caught.value)
    assert "excluded tool(s) ['export_data'] executed" in str(caught.value)
    report = contracts.check_exclusion_holds(
        _langchain(HidesAndRefuses(), saver), EXCLUDED, context=Ctx("guest")
    )
    assert report.complete and report.interrupts_resumed == 2 and report.runs == 2
    assert report.tool_calls_executed == ()


def test_deepagents_review_is_answered_and_the_hiding_only_filter_is_caught() -> None:
    deepagents = pytest.importorskip(
        "deepagents", reason="install hookproof[deepagents] to run this"
    )

    def build(filter_: Any) -> Any:
        return lambda model: deepagents.create_deep_agent(
            model, TOOLS, middleware=[filter_], interrupt_on=REVIEW, context_schema=Ctx
        )

    with pytest.raises(ContractViolation, match=r"excluded tool\(s\) \['delete_customer'\]"):
        contracts.check_exclusion_holds(build(HidesOnly()), EXCLUDED, context=Ctx("guest"))
    report = contracts.check_exclusion_holds(
        build(HidesAndRefuses()), EXCLUDED, context=Ctx("guest")
    )
    assert report.complete and report.interrupts_resumed == 2


def test_langchain_closure_goes_through_the_review() -> None:
    report = contracts.check_tool_closure(_langchain(HidesAndRefuses()), context=Ctx("admin"))
    assert report.interrupts_resumed == 2  # the two reviewed tools were approved
    assert sorted(report.tool_calls_executed) == sorted(t.name for t in TOOLS)


# -- node-hook-only LangChain middleware -----------------------------------------------------


class AppendsInPlace(AgentMiddleware):  # type: ignore[type-arg]
    """Buggy twin: adds a reminder by appending to the state's message list in place."""

    def before_model(self, state: Any, runtime: Any) -> Any:
        state["messages"].append(HumanMessage(content="Be brief."))
        return None


class ReturnsReminder(AgentMiddleware):  # type: ignore[type-arg]
    """Fixed twin: returns the reminder as a state update."""

    def before_model(self, state: Any, runtime: Any) -> Any:
        return {"messages": [HumanMessage(content="Be brief.")]}


def _redacted(message: Any) -> Any:
    """The message with each text block's text replaced, every other key kept."""
    content = message.content
    if isinstance(content, str):
        return message.model_copy(update={"content": "[redacted]"})
    blocks = [{**block, "text": "[redacted]"} if "text" in block else block for block in content]
    return message.model_copy(update={"content": blocks})


class RedactsCarelessly(AgentMiddleware):  # type: ignore[type-arg]
    """Buggy twin: rebuilds every human message from its redacted text."""

    def before_model(self, state: Any, runtime: Any) -> Any:
        rebuilt = [
            HumanMessage(content="[redacted]") if m.type == "human" else m
            for m in state["messages"]
        ]
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *rebuilt]}


class RedactsCarefully(AgentMiddleware):  # type: ignore[type-arg]
    """Fixed twin: redacts each human message's text and keeps everything else (ids, kwargs,
    each block's cache_control), replacing the messages by id."""

    def before_model(self, state: Any, runtime: Any) -> Any:
        return {"messages": [_redacted(m) for m in state["messages"] if m.type == "human"]}


def test_request_not_mutated_checks_langchain_node_hooks() -> None:
    with pytest.raises(ContractViolation, match="before_model changed the state it received"):
        contracts.check_request_not_mutated(AppendsInPlace())
    report = contracts.check_request_not_mutated(ReturnsReminder())
    assert report.hooks_observed == ("ReturnsReminder.before_model",)


def test_metadata_preserved_checks_langchain_node_hooks() -> None:
    with pytest.raises(ContractViolation) as caught:
        contracts.check_metadata_preserved(RedactsCarelessly())
    assert "before_model: user message 'u1': id 'u1' became None" in str(caught.value)
    assert "additional_kwargs" in str(caught.value)
    assert contracts.check_metadata_preserved(RedactsCarefully()).complete


def test_langchain_middleware_with_nothing_to_check_fails() -> None:
    class Empty(AgentMiddleware):  # type: ignore[type-arg]
        pass

    for check in (contracts.check_request_not_mutated, contracts.check_metadata_preserved):
        with pytest.raises(UntestedError, match="nothing to check"):
            check(Empty())


@tool
def phantom(query: str) -> str:
    """Shown by a middleware, registered nowhere."""
    return query


class ShowsPhantom(AgentMiddleware):  # type: ignore[type-arg]
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request.override(tools=[*request.tools, phantom]))


def test_tool_closure_reports_langchains_refusal_as_the_finding() -> None:
    def build(model: Any) -> Any:
        return create_agent(model, TOOLS, middleware=[ShowsPhantom()])

    with pytest.raises(ContractViolation) as caught:
        contracts.check_tool_closure(build)
    message = str(caught.value)
    assert "the framework refused to run: ValueError: Middleware added tools" in message
    assert "one-turn script" not in message


def test_unique_tool_names_sees_duplicates_langchain_accepts() -> None:
    @tool("public_search")
    def public_search_again(query: str) -> str:
        """A second tool under the same name."""
        return query

    def build(model: Any) -> Any:
        return create_agent(model, [*TOOLS, public_search_again])

    with pytest.raises(ContractViolation, match="'public_search' appears 2 times"):
        contracts.check_unique_tool_names(build)
    assert contracts.check_unique_tool_names(lambda model: create_agent(model, TOOLS)).complete


class FastPath(HidesAndRefuses):
    """Buggy twin: runs a guest's delete itself, answering with an error status."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        call = request.tool_call
        if call["name"] == "delete_customer" and request.tool is not None:
            text = str(request.tool.func(**call["args"]))
            return LCToolMessage(content=text, tool_call_id=call["id"], status="error")
        return super().wrap_tool_call(request, handler)


def test_langchain_exclusion_sees_a_tool_function_run_outside_the_trace() -> None:
    with pytest.raises(ContractViolation, match="its function ran outside the tool step"):
        contracts.check_exclusion_holds(_langchain(FastPath()), EXCLUDED, context=Ctx("guest"))


@pytest.mark.parametrize("framework", ["langchain", "deepagents"])
def test_requires_approval_on_the_frameworks(framework: str) -> None:
    def build(review: dict[str, Any]) -> Any:
        if framework == "langchain":
            hitl = HumanInTheLoopMiddleware(interrupt_on=review)
            return lambda model: create_agent(model, TOOLS, middleware=[hitl])
        deepagents = pytest.importorskip(
            "deepagents", reason="install hookproof[deepagents] to run this"
        )
        return lambda model: deepagents.create_deep_agent(model, TOOLS, interrupt_on=review)

    stale = {"delete_record": True, "export_data": True}
    with pytest.raises(ContractViolation, match="delete_customer ran without any review"):
        contracts.check_requires_approval(build(stale), sorted(EXCLUDED))
    report = contracts.check_requires_approval(build(REVIEW), sorted(EXCLUDED))
    # deepagents' subagents inherit interrupt_on: two reviews on the main agent, and two
    # more when the general-purpose subagent is asked to make the same calls.
    expected = 2 if framework == "langchain" else 4
    assert report.complete and report.interrupts_resumed == expected
