"""check_tool_errors_surface pointed at the user's own tool (``tool=``): an allow-list filter,
which refuses hookproof's sample tool, is checked on a tool it lets through; its buggy twin
(swallows the tool's errors) is caught and its fixed twin passes, on the reference runtime,
the harness's tools, LangChain ``create_agent`` middleware and deepagents' tools."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from hookproof import contracts
from hookproof.contracts import ContractViolation, UntestedError
from hookproof.errors import UsageError
from hookproof.harness import create_deep_agent
from hookproof.messages import ToolMessage
from hookproof.models import ScriptedModel
from hookproof.runtime import AgentMiddleware, tool

ALLOWED = {"support": frozenset({"lookup", "read_file"})}


@dataclass(frozen=True)
class Ctx:
    role: str = "support"


SUPPORT = Ctx("support")


@tool
def lookup(customer_id: str) -> str:
    """Look a customer up in the CRM."""
    return f"customer {customer_id}"


@tool
def refund(order_id: str) -> str:
    """Refund an order."""
    return f"refunded {order_id}"


def _allowed(name: str, context: Any) -> bool:
    return name in ALLOWED.get(getattr(context, "role", None), frozenset())


class AllowListSwallows(AgentMiddleware):
    """Buggy twin: refuses tools off the role's allow-list, and turns every error of an
    allowed tool into a success answer."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        call = request.tool_call
        if not _allowed(call.name, request.runtime.context):
            return ToolMessage(f"{call.name} is not allowed", tool_call_id=call.id, status="error")
        try:
            return handler(request)
        except Exception:  # noqa: BLE001 - the bug under test
            return ToolMessage("failed", tool_call_id=call.id)


class AllowListSurfaces(AllowListSwallows):
    """Fixed twin: refuses the same tools, lets an allowed tool's errors propagate."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        call = request.tool_call
        if not _allowed(call.name, request.runtime.context):
            return ToolMessage(f"{call.name} is not allowed", tool_call_id=call.id, status="error")
        return handler(request)


def _violation(middleware: object, **kwargs: Any) -> str:
    with pytest.raises(ContractViolation) as caught:
        contracts.check_tool_errors_surface(middleware, **kwargs)
    assert not isinstance(caught.value, UntestedError)
    return str(caught.value)


@pytest.mark.parametrize("middleware", [AllowListSwallows(), AllowListSurfaces()])
def test_an_allow_list_filter_on_the_sample_tool_is_untested_and_says_to_pass_tool(
    middleware: object,
) -> None:
    with pytest.raises(UntestedError) as caught:
        contracts.check_tool_errors_surface(middleware, context=SUPPORT)
    message = str(caught.value)
    assert "never called its handler on the sample call (context=Ctx(role='support'))" in message
    assert "'sample_search is not allowed'" in message and "pass tool= a tool of yours" in message


@pytest.mark.parametrize("given", [lookup, "lookup"], ids=["tool", "name"])
def test_the_users_tool_catches_the_swallowing_filter_and_passes_the_fixed_one(given: Any) -> None:
    message = _violation(AllowListSwallows(), context=SUPPORT, tool=given)
    assert "PermissionError became a success ToolMessage 'failed'" in message
    assert "around 'lookup' raising" in message
    assert "check_tool_errors_surface(AllowListSwallows(), context=Ctx(role='support'), " in message
    assert "tool='lookup')" in message
    report = contracts.check_tool_errors_surface(AllowListSurfaces(), context=SUPPORT, tool=given)
    assert report.complete and report.hooks_observed == ("AllowListSurfaces.wrap_tool_call",)


def test_the_call_carries_the_users_tool_and_arguments() -> None:
    seen: list[Any] = []

    class Records(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            seen.append(request)
            return handler(request)

    args = {"customer_id": "c-1"}
    contracts.check_tool_errors_surface(Records(), tool=lookup, args=args)
    assert seen[0].tool is lookup and seen[0].tool_call.args == args
    contracts.check_tool_errors_surface(Records(), tool="lookup")
    assert seen[-1].tool.name == "lookup" and seen[-1].tool_call.args == {}


def test_a_tool_the_filter_refuses_is_untested_not_passed() -> None:
    with pytest.raises(UntestedError) as caught:
        contracts.check_tool_errors_surface(AllowListSurfaces(), context=SUPPORT, tool=refund)
    message = str(caught.value)
    assert "never called its handler on a call to 'refund' (context=Ctx(role='support'))" in message
    assert "'refund is not allowed'" in message
    assert "pass tool= a tool this middleware lets through for that context" in message
    assert message.count("never called its handler") == 1  # one line, not one per error
    report = contracts.check_tool_errors_surface(
        AllowListSurfaces(), context=SUPPORT, tool=refund, allow_untested=True
    )
    assert not report.complete


class RaisesOffTheList(AgentMiddleware):
    """Refuses by raising, before the tool runs; lets an allowed tool's errors propagate."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        if not _allowed(request.tool_call.name, request.runtime.context):
            raise PermissionError(f"{request.tool_call.name} is not allowed")
        return handler(request)


def test_a_filter_that_refuses_by_raising_is_untested_on_a_refused_tool() -> None:
    with pytest.raises(UntestedError) as caught:
        contracts.check_tool_errors_surface(RaisesOffTheList(), context=SUPPORT, tool=refund)
    message = str(caught.value)
    assert "raised PermissionError: refund is not allowed on the sample call to 'refund'" in message
    assert "or tool=... that it accepts" in message
    report = contracts.check_tool_errors_surface(RaisesOffTheList(), context=SUPPORT, tool=lookup)
    assert report.complete


def test_on_the_harness_the_agents_own_tools_can_be_given() -> None:
    agent = create_deep_agent(ScriptedModel(["ok"]), [lookup, refund])
    read_file = next(item for item in agent.tools if item.name == "read_file")
    assert "PermissionError became a success" in _violation(
        AllowListSwallows(), context=SUPPORT, tool=read_file
    )
    contracts.check_tool_errors_surface(AllowListSurfaces(), context=SUPPORT, tool=read_file)


def test_tool_usage_errors_name_the_fix() -> None:
    with pytest.raises(UsageError, match="args= only with tool="):
        contracts.check_tool_errors_surface(AllowListSurfaces(), args={"customer_id": "c-1"})
    with pytest.raises(UsageError, match="tool= takes a hookproof Tool"):
        contracts.check_tool_errors_surface(AllowListSurfaces(), tool=42)


# -- LangChain create_agent and deepagents ----------------------------------------------------


def _langchain_twins() -> tuple[Any, Any, Any]:
    """The twins as LangChain middleware, and LangChain's lookup tool."""
    pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run this")
    from langchain.agents.middleware import AgentMiddleware as LCMiddleware
    from langchain_core.messages import ToolMessage as LCToolMessage
    from langchain_core.tools import tool as lc_tool

    class LCAllowListSwallows(LCMiddleware):  # type: ignore[type-arg]
        swallow = True

        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            call = request.tool_call
            if not _allowed(call["name"], request.runtime.context):
                return LCToolMessage("not allowed", tool_call_id=call["id"], status="error")
            if not self.swallow:
                return handler(request)
            try:
                return handler(request)
            except Exception:  # noqa: BLE001 - the bug under test
                return LCToolMessage("failed", tool_call_id=call["id"])

    class LCAllowListSurfaces(LCAllowListSwallows):
        swallow = False

    return LCAllowListSwallows(), LCAllowListSurfaces(), lc_tool(lookup.func)


def test_langchain_middleware_on_the_users_tool() -> None:
    buggy, fixed, lc_lookup = _langchain_twins()
    with pytest.raises(UntestedError, match="'not allowed'"):
        contracts.check_tool_errors_surface(fixed, context=SUPPORT)
    assert "became a success ToolMessage 'failed'" in _violation(
        buggy, context=SUPPORT, tool=lc_lookup
    )
    assert contracts.check_tool_errors_surface(fixed, context=SUPPORT, tool=lc_lookup).complete
    assert contracts.check_tool_errors_surface(fixed, context=SUPPORT, tool="lookup").complete
    with pytest.raises(UsageError, match="tool= takes a LangChain tool"):
        contracts.check_tool_errors_surface(fixed, context=SUPPORT, tool=lookup)


def test_deepagents_middleware_on_a_tool_of_the_deep_agent() -> None:
    buggy, fixed, _ = _langchain_twins()
    pytest.importorskip("deepagents", reason="install hookproof[deepagents] to run this")
    from deepagents.middleware import FilesystemMiddleware

    read_file = next(t for t in FilesystemMiddleware().tools if t.name == "read_file")
    assert "became a success ToolMessage 'failed'" in _violation(
        buggy, context=SUPPORT, tool=read_file
    )
    assert contracts.check_tool_errors_surface(fixed, context=SUPPORT, tool=read_file).complete
    with pytest.raises(UntestedError, match="on a call to 'ls'"):
        contracts.check_tool_errors_surface(fixed, context=SUPPORT, tool="ls")
