"""LangChain middleware, unchanged, on the reference engine: the same middleware, tools and
script run on LangChain's ``create_agent`` and on ``hookproof.runtime.create_agent``, and the
runs must agree on the hooks that ran (in order), every FinalRequest and the final messages.

Message ids are left out of the comparison: LangChain's are random (uuid4), the reference
engine's are deterministic (a documented difference).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.agents.middleware import (
    AgentMiddleware,
    AgentState,
    ClearToolUsesEdit,
    ContextEditingMiddleware,
    ModelCallLimitMiddleware,
    ModelRequest,
    ModelRetryMiddleware,
    PIIMiddleware,
    TodoListMiddleware,
    ToolCallLimitMiddleware,
    ToolRetryMiddleware,
    after_model,
    before_agent,
    before_model,
    dynamic_prompt,
    hook_config,
    wrap_model_call,
    wrap_tool_call,
)
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.tools import tool

from hookproof.adapters.langchain import ScriptedChatModel, on_reference_engine
from hookproof.models import call
from hookproof.runtime import create_agent
from hookproof.targets import TargetRun
from hookproof.targets.reference import ReferenceTarget
from tests.adapters.engines import add, assert_same_run, run_on_both


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"found {query}"


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


@dataclass
class Case:
    """One conformance case: ``middleware()`` builds fresh instances for each engine."""

    middleware: Callable[[], list[Any]]
    script: list[Any]
    tools: Callable[[], list[Any]] = lambda: [add, lookup, delete_file]
    system_prompt: str | None = "You help."
    input: dict[str, Any] | None = None
    context: Any = None


# -- the middleware ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Ctx:
    """The trusted context type: the application builds it, never the user."""

    role: str = "guest"


class RoleToolFilter(AgentMiddleware):
    """Hides delete_file from anyone but an admin (fail-closed on a missing context)."""

    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        context = request.runtime.context if request.runtime else None
        if isinstance(context, Ctx) and context.role == "admin":
            return handler(request)
        tools = [t for t in request.tools if t.name != "delete_file"]
        return handler(request.override(tools=tools))

    async def awrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        return self.wrap_model_call(request, handler)


class AppendPolicy(AgentMiddleware):
    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        text = (request.system_prompt or "") + "\nNever share secrets."
        return handler(request.override(system_message=SystemMessage(text)))


class StopAfterToolError(AgentMiddleware):
    @hook_config(can_jump_to=["end"])
    def after_model(self, state: AgentState, runtime: Any) -> Any:
        last = state["messages"][-1]
        if isinstance(last, AIMessage) and not last.tool_calls:
            return {"jump_to": "end"}
        return None


@before_agent
def greet(state: AgentState, runtime: Any) -> Any:
    return {"messages": [HumanMessage("(session started)")]}


@before_model(can_jump_to=["end"])
def refuse_secrets(state: AgentState, runtime: Any) -> Any:
    if "secret" in state["messages"][-1].text:
        return {"messages": [AIMessage("I cannot help with that.")], "jump_to": "end"}
    return None


@after_model
def note_calls(state: AgentState, runtime: Any) -> Any:
    return None


@dynamic_prompt
def by_role(request: ModelRequest) -> str:
    role = (request.runtime.context or {}).get("role", "guest") if request.runtime else "guest"
    return f"You help a {role}."


@wrap_tool_call
def double_args(request: Any, handler: Any) -> Any:
    args = {key: value * 2 for key, value in request.tool_call["args"].items()}
    return handler(request.override(tool_call={**request.tool_call, "args": args}))


@wrap_model_call
def trim_history(request: ModelRequest, handler: Any) -> Any:
    return handler(request.override(messages=request.messages[-3:]))


class FlakyTool:
    """A tool that fails its first ``failures`` calls (one instance per engine)."""

    def __init__(self, failures: int) -> None:
        self.left = failures

        @tool
        def flaky(query: str) -> str:
            """A tool that sometimes fails."""
            if self.left > 0:
                self.left -= 1
                raise RuntimeError("temporary failure")
            return f"ok {query}"

        self.tool = flaky


CASES: dict[str, Case] = {
    "custom class: role tool filter": Case(
        middleware=lambda: [RoleToolFilter()],
        script=[call("lookup", {"query": "a"}), "done"],
        context=Ctx("guest"),
    ),
    "custom class: system prompt edit + wrap order": Case(
        middleware=lambda: [AppendPolicy(), RoleToolFilter()],
        script=[call("add", {"a": 1, "b": 2}), "three"],
    ),
    "hook_config jump to end": Case(
        middleware=lambda: [StopAfterToolError(), note_calls],
        script=[call("add", {"a": 1, "b": 2}), "three", "never"],
    ),
    "decorated before_agent adds a message": Case(
        middleware=lambda: [greet],
        script=["hello"],
    ),
    "decorated before_model jump (can_jump_to)": Case(
        middleware=lambda: [refuse_secrets],
        script=["never"],
        input={"messages": [("user", "tell me the secret")]},
    ),
    "dynamic_prompt": Case(
        middleware=lambda: [by_role],
        script=["hi"],
        context={"role": "admin"},
    ),
    "wrap_tool_call rewrites args": Case(
        middleware=lambda: [double_args],
        script=[call("add", {"a": 1, "b": 2}), "six"],
    ),
    "wrap_model_call trims history": Case(
        middleware=lambda: [trim_history],
        script=[call("lookup", {"query": "a"}), call("lookup", {"query": "b"}), "done"],
    ),
    "ModelCallLimitMiddleware ends the run": Case(
        middleware=lambda: [ModelCallLimitMiddleware(run_limit=1, exit_behavior="end")],
        script=[call("lookup", {"query": "a"}), "never"],
    ),
    "ToolCallLimitMiddleware blocks calls over the limit": Case(
        middleware=lambda: [ToolCallLimitMiddleware(tool_name="lookup", run_limit=1)],
        script=[[call("lookup", {"query": "a"}), call("lookup", {"query": "b"})], "done"],
    ),
    "ModelRetryMiddleware retries a failing call": Case(
        middleware=lambda: [ModelRetryMiddleware(max_retries=2, initial_delay=0, jitter=False)],
        script=[RuntimeError("provider down"), "recovered"],
    ),
    "PIIMiddleware redacts input": Case(
        middleware=lambda: [PIIMiddleware("email", strategy="redact", apply_to_input=True)],
        script=["noted"],
        input={"messages": [("user", "mail me at ada@example.com")]},
    ),
    "ContextEditingMiddleware clears old tool results": Case(
        middleware=lambda: [
            ContextEditingMiddleware(edits=[ClearToolUsesEdit(trigger=10, keep=1)])
        ],
        script=[call("lookup", {"query": "a"}), call("lookup", {"query": "b"}), "done"],
    ),
    "TodoListMiddleware: tool returning a Command, state schema, prompt": Case(
        middleware=lambda: [TodoListMiddleware()],
        script=[call("write_todos", {"todos": [{"content": "x", "status": "pending"}]}), "ok"],
    ),
    "TodoListMiddleware: the model reuses one tool-call id on every turn": Case(
        middleware=lambda: [TodoListMiddleware()],
        script=[
            *(
                call("write_todos", {"todos": [{"content": "x", "status": s}]}, id="same")
                for s in ("pending", "in_progress", "completed")
            ),
            "ok",
        ],
    ),
    "ToolRetryMiddleware retries a failing tool": Case(
        middleware=lambda: [ToolRetryMiddleware(max_retries=2, initial_delay=0, jitter=False)],
        script=[call("flaky", {"query": "x"}), "done"],
        tools=lambda: [FlakyTool(1).tool],
    ),
}


# -- running both engines --------------------------------------------------------------------

_RANDOM_ID = re.compile(r"^(lc_run--)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _saver() -> Any:
    """LangGraph's checkpointer cannot serialise a tool's Command (a Send) with its default
    serializer; the comparison is about behaviour, so let it pickle."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    return InMemorySaver(serde=JsonPlusSerializer(pickle_fallback=True))


def _run_both(case: Case) -> tuple[TargetRun, TargetRun]:
    def langchain_build(model: Any) -> Any:
        return langchain_create_agent(
            model,
            case.tools(),
            middleware=case.middleware(),
            system_prompt=case.system_prompt,
            checkpointer=_saver(),
        )

    def reference_build(model: Any) -> Any:
        return create_agent(
            model, case.tools(), middleware=case.middleware(), system_prompt=case.system_prompt
        )

    options = {"script": case.script, "context": case.context}
    if case.input is not None:
        options["input"] = case.input
    return run_on_both(langchain_build, reference_build, **options)


@pytest.mark.parametrize("name", list(CASES))
def test_langchain_middleware_runs_the_same_on_the_reference_engine(name: str) -> None:
    assert_same_run(*_run_both(CASES[name]))


def test_conformance_covers_at_least_ten_middleware() -> None:
    assert len(CASES) >= 10


# -- a factory written for LangChain, on the reference engine ----------------------------------


def _langchain_app(models: Any) -> Any:
    """An application factory as a LangChain user writes it."""
    return langchain_create_agent(
        models["fast"], [lookup, delete_file], middleware=[TierRouter(models), RoleToolFilter()]
    )


class TierRouter(AgentMiddleware):
    def __init__(self, models: Any) -> None:
        super().__init__()
        self.models = models

    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        return handler(request.override(model=self.models["fast"]))


class LeakyFilter(RoleToolFilter):
    """The buggy twin: trusts any dict that says admin."""

    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        context = request.runtime.context if request.runtime else None
        if isinstance(context, dict) and context.get("role") == "admin":
            return handler(request)
        return super().wrap_model_call(request, handler)


def test_a_langchain_factory_runs_on_the_reference_engine_and_contracts_hold() -> None:
    import langchain.agents

    from hookproof import contracts
    from hookproof.runtime import Agent

    tiers = ("fast", "reasoning")
    build = on_reference_engine(_langchain_app)
    target = ReferenceTarget(build, tiers=tiers)
    assert isinstance(target.agent(target.models()), Agent)
    restored = _langchain_app.__globals__["langchain_create_agent"]  # put back after the build
    assert restored is langchain.agents.create_agent
    assert restored.__module__.startswith("langchain")
    contracts.check_fail_closed(
        build, {"role": "admin"}, least_privileged_context=None, tiers=tiers
    )


def test_the_contract_catches_the_buggy_twin_on_the_reference_engine() -> None:
    from hookproof import contracts
    from hookproof.errors import ContractViolation

    def leaky(models: Any) -> Any:
        return langchain_create_agent(
            models["fast"], [lookup, delete_file], middleware=[LeakyFilter()]
        )

    with pytest.raises(ContractViolation, match="delete_file"):
        contracts.check_fail_closed(
            on_reference_engine(leaky),
            {"role": "admin"},
            least_privileged_context=None,
            tiers=("fast",),
        )


_KEPT_ELSEWHERE = {"create_agent": langchain_create_agent}


def test_a_factory_that_cannot_be_swapped_is_an_error() -> None:
    from hookproof.errors import UsageError

    def hidden(models: Any) -> Any:
        return _KEPT_ELSEWHERE["create_agent"](models["fast"])  # a reference not swapped

    with pytest.raises(UsageError, match="still built"):
        on_reference_engine(hidden)({"fast": ScriptedChatModel(["x"])})

    def structured(models: Any) -> Any:
        return langchain_create_agent(models["fast"], [], response_format=dict)

    with pytest.raises(UsageError, match="response_format"):
        on_reference_engine(structured)({"fast": ScriptedChatModel(["x"])})


def test_on_reference_engine_bounds_a_run_as_langchain_does() -> None:
    def app(model: Any) -> Any:
        return langchain_create_agent(model, [add])

    script = [call("add", {"a": i, "b": 1}) for i in range(40)] + ["done"]
    result = on_reference_engine(app)(ScriptedChatModel(script)).run(
        {"messages": [("user", "count")]}
    )
    assert result.text == "done"
    assert len(result.final_requests) == 41  # past the reference runtime's default of 25
