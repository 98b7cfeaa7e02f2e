"""A LangChain application as it is: a checkpointer, human review, middleware that reads the
context. Every agent check and middleware check runs on it through public API, and
``run()`` gives hookproof's RunResult for any compiled agent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run this")

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, HumanInTheLoopMiddleware
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from hookproof import contracts
from hookproof.adapters.langchain import RecordingChatModel, ScriptedChatModel, run
from hookproof.contracts import UntestedError
from hookproof.errors import UsageError
from hookproof.models import call
from hookproof.runtime import RunResult
from hookproof.trace import Trace


@dataclass(frozen=True)
class Ctx:
    role: str


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"found {query}"


@tool
def delete_account(account_id: str) -> str:
    """Delete an account."""
    return f"deleted {account_id}"


class RoleFilter(AgentMiddleware):  # type: ignore[type-arg]
    """Reads the caller's role from the runtime context; admins alone see and run deletes."""

    def before_model(self, state: Any, runtime: Any) -> None:
        runtime.context.role  # noqa: B018 - a context-reading node hook, as real apps have

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        if request.runtime.context.role != "admin":
            request = request.override(tools=[t for t in request.tools if t.name == "lookup"])
        return handler(request)

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        admin = request.runtime.context.role == "admin"
        if request.tool_call["name"] == "delete_account" and not admin:
            return ToolMessage("not allowed", tool_call_id=request.tool_call["id"], status="error")
        return handler(request)


def build(model: Any) -> Any:
    """The application's own factory: a checkpointer, review of deletes, the role filter."""
    review = HumanInTheLoopMiddleware(interrupt_on={"delete_account": True})
    return create_agent(
        model,
        [lookup, delete_account],
        middleware=[RoleFilter(), review],
        context_schema=Ctx,
        checkpointer=InMemorySaver(),
    )


def _every_agent_check(factory: Any) -> list[str]:
    """Runs every agent check on the application ``factory`` builds, with a guest and an
    admin; the tool calls the closure check executed for the admin."""
    guest, admin = Ctx("guest"), Ctx("admin")
    contracts.check_fail_closed(factory, Ctx("intruder"), least_privileged_context=guest)
    report = contracts.check_exclusion_holds(factory, ["delete_account"], context=guest)
    assert report.complete and report.interrupts_resumed == 1
    closure = contracts.check_tool_closure(factory, context=admin)
    contracts.check_injected_model_used(factory, context=guest)
    contracts.check_isolation(factory, [guest, admin], modes=["threads"])
    return list(closure.tool_calls_executed)


def test_every_agent_check_runs_on_the_application() -> None:
    assert sorted(_every_agent_check(build)) == ["delete_account", "lookup"]


def test_every_middleware_check_runs_with_a_context() -> None:
    admin = Ctx("admin")
    with pytest.raises(UntestedError, match="pass context="):
        contracts.check_request_not_mutated(RoleFilter())
    assert contracts.check_request_not_mutated(RoleFilter(), context=admin).complete
    assert contracts.check_metadata_preserved(RoleFilter(), context=admin).complete
    assert contracts.check_tool_errors_surface(RoleFilter(), context=admin).complete
    assert contracts.check_bounded_retry(RoleFilter(), context=admin).complete


class Counting(BaseCallbackHandler):
    def __init__(self) -> None:
        self.model_calls = 0

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        self.model_calls += 1


def test_config_is_merged_into_every_run() -> None:
    counting = Counting()
    report = contracts.check_tool_closure(
        build, context=Ctx("admin"), config={"callbacks": [counting], "tags": ["ci"]}
    )
    # The first run answers at once; each tool's run calls it, then answers.
    assert report.runs == 3 and counting.model_calls == 1 + 2 * 2


def test_config_names_the_thread_on_hookproof_agents_only() -> None:
    from hookproof.runtime import create_agent as hookproof_agent

    def reference(model: Any) -> Any:
        return hookproof_agent(model, [])

    with pytest.raises(UsageError, match=r"got keys \['tags'\]"):
        contracts.check_injected_model_used(reference, config={"tags": ["x"]})


def test_run_gives_the_runtime_result_for_a_compiled_agent() -> None:
    model = ScriptedChatModel(script=[call("lookup", {"query": "refunds"}), "Done."])
    agent = build(model)
    result = run(agent, {"messages": [("user", "hi")]}, context=Ctx("guest"))
    assert isinstance(result, RunResult) and isinstance(result.trace, Trace)
    assert result.text == "Done."
    assert [m.role for m in result.messages] == ["user", "assistant", "tool", "assistant"]
    assert [r.tool_names for r in result.final_requests] == [["lookup"], ["lookup"]]
    assert result.trace.count("before_model", "RoleFilter") == 2
    assert [e.data["tool"] for e in result.trace.tool_calls] == ["lookup"]
    contracts.check_hook_order(result.trace)


def test_run_reports_interrupts_and_resumes_on_the_same_thread() -> None:
    model = RecordingChatModel(
        inner=ScriptedChatModel(script=[call("delete_account", {"account_id": "a1"}), "ok"])
    )
    agent = build(model)
    paused = run(agent, {"messages": [("user", "delete a1")]}, context=Ctx("admin"))
    assert paused.interrupts and paused.interrupts[0].value["action_requests"][0]["name"] == (
        "delete_account"
    )
    config = {"configurable": {"thread_id": paused.thread_id}}
    resumed = run(
        agent,
        Command(resume={"decisions": [{"type": "approve"}]}),
        context=Ctx("admin"),
        config=config,
    )
    assert resumed.interrupts == () and resumed.text == "ok"
    assert "deleted a1" in [m.text for m in resumed.messages]


def test_run_refuses_what_is_not_an_agent() -> None:
    with pytest.raises(UsageError, match="compiled LangChain or deepagents agent"):
        run(object(), {"messages": []})


def build_deep(model: Any) -> Any:
    """The same application on deepagents: review of deletes, the role filter, a saver."""
    deepagents = pytest.importorskip(
        "deepagents", reason="install hookproof[deepagents] to run this"
    )
    return deepagents.create_deep_agent(
        model,
        [lookup, delete_account],
        middleware=[RoleFilter()],
        interrupt_on={"delete_account": True},
        context_schema=Ctx,
        checkpointer=InMemorySaver(),
    )


def test_every_agent_check_runs_on_the_deepagents_application() -> None:
    executed = _every_agent_check(build_deep)
    assert {"delete_account", "lookup", "ls", "task"} <= set(executed)
    admin = Ctx("admin")
    agent = build_deep(ScriptedChatModel(script=["hi"]))
    result = run(agent, {"messages": [("user", "x")]}, context=admin)
    assert result.text == "hi" and {"lookup", "task"} <= set(result.final_requests[0].tool_names)
    assert contracts.check_hook_order(result.trace).complete
