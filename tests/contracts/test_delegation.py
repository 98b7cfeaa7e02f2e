"""check_delegation_contained and check_role_matrix: a guest must not reach a tool the main
agent hides through a subagent. The buggy twin declares a subagent without tools (it
inherits every tool of the main agent and none of its middleware); the fixed twin gives each
subagent the main agent's filter. On the harness, deepagents, LangChain create_agent, the
reference runtime and the Eino dialect."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from hookproof import contracts
from hookproof.contracts import ContractViolation, UntestedError
from hookproof.eino import BaseChatModelAgentMiddleware, ChatModelAgent
from hookproof.errors import InvalidInputError, UsageError
from hookproof.harness import BUILTIN_TOOL_NAMES, create_deep_agent
from hookproof.messages import ToolMessage
from hookproof.runtime import AgentMiddleware, create_agent, tool

PRIVILEGED = frozenset({"refund"})


@dataclass(frozen=True)
class Ctx:
    role: str


GUEST, ADMIN = Ctx("guest"), Ctx("admin")


def _allowed(name: str, context: Any) -> bool:
    return name not in PRIVILEGED or getattr(context, "role", None) == "admin"


@tool
def search(query: str) -> str:
    """Search the knowledge base."""
    return f"found {query}"


@tool
def refund(order_id: str) -> str:
    """Refund an order."""
    return f"refunded {order_id}"


class RoleRouter(AgentMiddleware):
    """Hides and refuses the privileged tools for anyone but an admin."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        context = request.runtime.context
        return handler(
            request.override(tools=[t for t in request.tools if _allowed(t.name, context)])
        )

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        call = request.tool_call
        if _allowed(call.name, request.runtime.context):
            return handler(request)
        return ToolMessage(f"{call.name} is not allowed", tool_call_id=call.id, status="error")


def _subagent(name: str, *, filtered: bool) -> dict[str, Any]:
    spec: dict[str, Any] = {"name": name, "description": f"the {name}", "system_prompt": "help"}
    return {**spec, "middleware": [RoleRouter()]} if filtered else spec


def _harness(*, filtered: bool) -> Callable[[Any], Any]:
    """The buggy twin (filtered=False) declares its subagents without tools or middleware."""
    subagents = [_subagent(n, filtered=filtered) for n in ("general-purpose", "researcher")]
    return lambda model: create_deep_agent(
        model, [search, refund], middleware=[RoleRouter()], subagents=subagents
    )


def _found(error: pytest.ExceptionInfo[ContractViolation]) -> str:
    return str(error.value).split("Fix:")[0]


# -- check_delegation_contained ----------------------------------------------------------------


def test_delegation_catches_a_subagent_that_inherits_the_hidden_tool_on_the_harness() -> None:
    with pytest.raises(ContractViolation) as error:
        contracts.check_delegation_contained(_harness(filtered=False), GUEST)
    found = _found(error)
    for subagent in ("general-purpose", "researcher"):
        where = f"subagent {subagent!r}: refund is hidden from the main agent"
        assert f"{where} but shown to the subagent" in found
        assert f"{where} but a call to it from the subagent ran the tool" in found
    assert ": search is" not in found


def test_delegation_passes_subagents_with_the_main_agents_filter_on_the_harness() -> None:
    report = contracts.check_delegation_contained(_harness(filtered=True), GUEST)
    assert report.complete
    cells = {(row.agent, row.tool): row.cell for row in report.tool_access}
    assert cells == {
        ("subagent 'general-purpose'", "refund"): "hidden / refused",
        ("subagent 'researcher'", "refund"): "hidden / refused",
    }


def test_a_tool_delegated_on_purpose_is_allowed_and_a_typo_is_refused() -> None:
    report = contracts.check_delegation_contained(
        _harness(filtered=False), GUEST, delegated=["refund"]
    )
    assert report.complete and report.tool_access == ()
    with pytest.raises(InvalidInputError, match="did you mean 'refund'"):
        contracts.check_delegation_contained(_harness(filtered=True), GUEST, delegated=["refnd"])
    with pytest.raises(UsageError, match=r"delegated=\('refund',\)"):
        contracts.check_delegation_contained(_harness(filtered=True), GUEST, delegated="refund")


def test_an_agent_without_subagents_is_untested_not_passed() -> None:
    build = lambda model: create_agent(model, [search, refund], middleware=[RoleRouter()])  # noqa: E731
    with pytest.raises(UntestedError, match="offers no subagent for this context"):
        contracts.check_delegation_contained(build, GUEST)


class RefusesTask(AgentMiddleware):
    """Shows task but refuses every call to it: no subagent is ever reached."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        call = request.tool_call
        if call.name == "task":
            return ToolMessage("no delegation", tool_call_id=call.id, status="error")
        return handler(request)


def test_a_subagent_the_main_agent_never_reaches_is_untested_not_passed() -> None:
    build = lambda model: create_deep_agent(  # noqa: E731
        model, [search, refund], middleware=[RoleRouter(), RefusesTask()]
    )
    with pytest.raises(UntestedError, match="subagent 'general-purpose': never called"):
        contracts.check_delegation_contained(build, GUEST)
    with pytest.raises(ContractViolation, match="task is allowed but a call to it was refused"):
        contracts.check_role_matrix(build, {GUEST: {*BUILTIN_TOOL_NAMES, "search"}})


# -- deepagents ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LangChainApp:
    """The same app in LangChain middleware: the router, its hide-only twin, the tools."""

    router: type
    hides_only: type
    tools: list[Any]


def _langchain_app() -> LangChainApp:
    pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run this")
    from langchain.agents.middleware import AgentMiddleware as LCMiddleware
    from langchain_core.messages import ToolMessage as LCToolMessage
    from langchain_core.tools import tool as lc_tool

    class LCRoleRouter(LCMiddleware):  # type: ignore[type-arg]
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            context = request.runtime.context
            shown = [t for t in request.tools if _allowed(t.name, context)]
            return handler(request.override(tools=shown))

        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            call = request.tool_call
            if _allowed(call["name"], request.runtime.context):
                return handler(request)
            return LCToolMessage("not allowed", tool_call_id=call["id"], status="error")

    class LCHidesOnly(LCRoleRouter):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

    return LangChainApp(LCRoleRouter, LCHidesOnly, [lc_tool(search.func), lc_tool(refund.func)])


def _deepagents(*, filtered: bool) -> Callable[[Any], Any]:
    """The subagent twins on deepagents' create_deep_agent, with LangChain middleware."""
    app = _langchain_app()
    pytest.importorskip("deepagents", reason="install hookproof[deepagents] to run this")
    from deepagents import create_deep_agent as da_create_deep_agent

    def spec(name: str) -> dict[str, Any]:
        base: dict[str, Any] = {"name": name, "description": f"the {name}", "system_prompt": "help"}
        return {**base, "middleware": [app.router()]} if filtered else base

    subagents = [spec("general-purpose"), spec("researcher")]
    return lambda model: da_create_deep_agent(
        model=model,
        tools=app.tools,
        middleware=[app.router()],
        subagents=subagents,
        context_schema=Ctx,
    )


def test_delegation_on_deepagents() -> None:
    with pytest.raises(ContractViolation) as error:
        contracts.check_delegation_contained(_deepagents(filtered=False), GUEST)
    found = _found(error)
    for subagent in ("general-purpose", "researcher"):
        where = f"subagent {subagent!r}: refund is hidden from the main agent"
        assert f"{where} but shown to the subagent" in found
        assert f"{where} but a call to it from the subagent ran the tool" in found
    report = contracts.check_delegation_contained(_deepagents(filtered=True), GUEST)
    assert report.complete
    cells = {(row.agent, row.tool): row.cell for row in report.tool_access}
    assert cells[("subagent 'general-purpose'", "refund")] == "hidden / refused"
    assert cells[("subagent 'researcher'", "refund")] == "hidden / refused"
    # deepagents hides `execute` without a sandbox yet runs a call to it (to refuse it): the
    # main agent runs it too, so a subagent running it is no escalation
    assert cells[("main agent", "execute")] == cells[("subagent 'researcher'", "execute")]


# -- check_role_matrix ---------------------------------------------------------------------------


class HidesOnly(RoleRouter):
    """Buggy twin: hides the privileged tools from a guest but lets a call to one run."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        return handler(request)


def _matrix(builtins: frozenset[str]) -> dict[Ctx, frozenset[str]]:
    return {GUEST: builtins | {"search"}, ADMIN: builtins | {"search", "refund"}}


HARNESS_MATRIX = _matrix(BUILTIN_TOOL_NAMES)


def test_role_matrix_catches_a_router_that_hides_without_refusing_on_the_harness() -> None:
    build = lambda model: create_deep_agent(model, [search, refund], middleware=[HidesOnly()])  # noqa: E731
    with pytest.raises(ContractViolation) as error:
        contracts.check_role_matrix(build, HARNESS_MATRIX)
    found = _found(error)
    assert (
        "Ctx(role='guest'), main agent: refund is not allowed but a call to it ran the tool"
        in found
    )
    assert "Ctx(role='admin'), main agent: refund" not in found
    assert re.search(r"\n +refund +hidden / runs +visible / runs\n", str(error.value))  # table


def test_role_matrix_catches_a_subagent_leak_and_passes_the_fixed_twin_on_the_harness() -> None:
    with pytest.raises(ContractViolation) as error:
        contracts.check_role_matrix(_harness(filtered=False), HARNESS_MATRIX)
    found = _found(error)
    where = "Ctx(role='guest'), subagent 'researcher': refund is not allowed"
    assert f"{where} but shown to the subagent" in found
    assert f"{where} but a call to it from the subagent ran the tool" in found
    report = contracts.check_role_matrix(_harness(filtered=True), HARNESS_MATRIX)
    assert report.complete
    cells = {(row.context, row.agent, row.tool): row.cell for row in report.tool_access}
    assert cells[("Ctx(role='guest')", "main agent", "refund")] == "hidden / refused"
    assert cells[("Ctx(role='admin')", "main agent", "refund")] == "visible / runs"
    assert cells[("Ctx(role='guest')", "subagent 'researcher'", "refund")] == "hidden / refused"
    assert cells[("Ctx(role='admin')", "subagent 'researcher'", "refund")] == "visible / runs"
    assert "context=Ctx(role='guest')" in report.access_table()


def test_role_matrix_takes_unhashable_contexts_as_pairs_and_refuses_bad_matrices() -> None:
    build = lambda model: create_agent(model, [search, refund], middleware=[DictRouter()])  # noqa: E731
    pairs = [({"role": "guest"}, {"search"}), ({"role": "admin"}, {"search", "refund"})]
    report = contracts.check_role_matrix(build, pairs)
    assert report.complete and len(report.tool_access) == 4
    with pytest.raises(UsageError, match=r"a dict \{context: allowed_tools\}"):
        contracts.check_role_matrix(build, {"search"})
    with pytest.raises(UsageError, match="must be a collection of tool names"):
        contracts.check_role_matrix(build, {GUEST: "search"})
    with pytest.raises(InvalidInputError, match="did you mean 'search'"):
        contracts.check_role_matrix(build, [({"role": "guest"}, {"serch"})])


class DictRouter(RoleRouter):
    """RoleRouter for a context that is a dict."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        role = Ctx(request.runtime.context["role"])
        return handler(request.override(tools=[t for t in request.tools if _allowed(t.name, role)]))

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        call = request.tool_call
        if _allowed(call.name, Ctx(request.runtime.context["role"])):
            return handler(request)
        return ToolMessage("not allowed", tool_call_id=call.id, status="error")


def test_role_matrix_on_langchain_create_agent() -> None:
    app = _langchain_app()
    from langchain.agents import create_agent as lc_create_agent

    matrix = _matrix(frozenset())

    def build(router: type) -> Callable[[Any], Any]:
        return lambda model: lc_create_agent(
            model, app.tools, middleware=[router()], context_schema=Ctx
        )

    with pytest.raises(ContractViolation) as error:
        contracts.check_role_matrix(build(app.hides_only), matrix)
    found = _found(error)
    assert "Ctx(role='guest'), main agent: refund is not allowed but a call to it ran" in found
    assert found.count("\n  - ") == 1
    report = contracts.check_role_matrix(build(app.router), matrix)
    assert report.complete
    assert [row.cell for row in report.tool_access] == [
        "hidden / refused",  # guest, refund
        "visible / runs",  # guest, search
        "visible / runs",  # admin, refund
        "visible / runs",  # admin, search
    ]


def test_role_matrix_on_deepagents() -> None:
    pytest.importorskip("deepagents", reason="install hookproof[deepagents] to run this")
    from hookproof.adapters.deepagents import BUILTIN_TOOL_NAMES as DEEPAGENTS_TOOL_NAMES

    matrix = _matrix(DEEPAGENTS_TOOL_NAMES)
    # execute: hidden without a sandbox, yet a call to it runs (to say so); the file tools
    # are skipped only to keep this test short (each tool is a run per agent and context)
    skip = DEEPAGENTS_TOOL_NAMES - {"task", "ls"}
    with pytest.raises(ContractViolation) as error:
        contracts.check_role_matrix(_deepagents(filtered=False), {GUEST: matrix[GUEST]}, skip=skip)
    where = "Ctx(role='guest'), subagent 'researcher': refund is not allowed"
    assert f"{where} but a call to it from the subagent ran the tool" in _found(error)
    report = contracts.check_role_matrix(_deepagents(filtered=True), matrix, skip=skip)
    assert report.complete and "execute" in report.tools_skipped
    cells = {(row.context, row.agent, row.tool): row.cell for row in report.tool_access}
    assert cells[("Ctx(role='guest')", "subagent 'researcher'", "refund")] == "hidden / refused"
    assert cells[("Ctx(role='admin')", "subagent 'researcher'", "refund")] == "visible / runs"


class EinoRoleRouter(BaseChatModelAgentMiddleware):
    """RoleRouter as an Eino handler; ``refuses=False`` is the hide-only twin."""

    def __init__(self, *, refuses: bool) -> None:
        self.refuses = refuses

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        role = Ctx(ctx.value("role"))
        shown = [i for i in state.tool_infos or () if _allowed(i.name, role)]
        return ctx, state.override(tool_infos=shown)

    def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
        if not self.refuses or _allowed(tool_ctx.name, Ctx(ctx.value("role"))):
            return endpoint
        return lambda ctx, arguments: f"{tool_ctx.name} is not allowed"


def test_role_matrix_on_the_eino_dialect() -> None:
    def build(refuses: bool) -> Callable[[Any], Any]:
        router = EinoRoleRouter(refuses=refuses)
        return lambda model: ChatModelAgent(model=model, tools=[search, refund], handlers=[router])

    pairs = [({"role": "guest"}, {"search"}), ({"role": "admin"}, {"search", "refund"})]
    with pytest.raises(ContractViolation) as error:
        contracts.check_role_matrix(build(refuses=False), pairs)
    assert "{'role': 'guest'}, main agent: refund is not allowed but a call to it ran" in _found(
        error
    )
    report = contracts.check_role_matrix(build(refuses=True), pairs)
    assert report.complete
    assert [row.cell for row in report.tool_access][:2] == ["hidden / refused", "visible / runs"]
