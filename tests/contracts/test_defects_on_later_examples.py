"""A defect that shows only on a later example, or only in a later build of the factory, must still
fail the check. A check that cached anything across examples or builds would pass these buggy
twins."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookproof import contracts
from hookproof.contracts import ContractViolation
from hookproof.examples.dynamic_routing import (
    BUSINESS_TOOL_NAMES,
    BUSINESS_TOOLS,
    AgentContext,
    RequestRouter,
    visible_business_tools,
)
from hookproof.messages import ToolMessage
from hookproof.models import RecordingModel, ScriptedModel
from hookproof.runtime import AgentMiddleware, ModelRequest, create_agent, tool

GUEST = AgentContext("guest", "fast")
ROOT = AgentContext("root")  # type: ignore[arg-type]
TIERS = ("fast", "reasoning")


def _examples(check: Any, count: int) -> None:
    """``count`` more examples of one check, as a property test draws them."""
    for _ in range(count):
        check()


def _tools_for(role: str, request: ModelRequest) -> list[Any]:
    allowed = visible_business_tools(role)
    return [t for t in request.tools if t.name not in BUSINESS_TOOL_NAMES or t.name in allowed]


class OpensOnItsSecondUnknownRun(RequestRouter):
    """Least privilege for an unknown role, except on every second such run (a counter
    kept on the class, as a cache or a rate limiter might)."""

    unknown_runs = 0

    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        context = request.runtime.context if request.runtime else None
        role = getattr(context, "role", "guest")
        if role not in ("guest", "analyst", "admin"):
            OpensOnItsSecondUnknownRun.unknown_runs += 1
            role = "admin" if OpensOnItsSecondUnknownRun.unknown_runs % 2 == 0 else "guest"
        return handler(request.override(tools=_tools_for(role, request)))


def _routed(router: type[RequestRouter]) -> Any:
    def build(models: Any) -> Any:
        return create_agent(models["fast"], list(BUSINESS_TOOLS), middleware=[router(models)])

    return build


def _check_root(build: Any) -> Any:
    return contracts.check_fail_closed(build, ROOT, least_privileged_context=GUEST, tiers=TIERS)


def test_fail_closed_catches_a_router_that_opens_on_a_later_example() -> None:
    OpensOnItsSecondUnknownRun.unknown_runs = 0
    build = _routed(OpensOnItsSecondUnknownRun)
    _check_root(build)  # the first example: least privilege
    with pytest.raises(ContractViolation, match="tools beyond the least-privileged set"):
        _examples(lambda: _check_root(build), 3)


def test_fail_closed_catches_a_factory_whose_later_builds_are_open() -> None:
    builds = [0]

    def build(models: Any) -> Any:
        builds[0] += 1
        router = RequestRouter if builds[0] <= 2 else _AdminForUnknown
        return create_agent(models["fast"], list(BUSINESS_TOOLS), middleware=[router(models)])

    _check_root(build)
    with pytest.raises(ContractViolation, match="tools beyond the least-privileged set"):
        _examples(lambda: _check_root(build), 3)
    assert builds[0] >= 3  # the factory was called again for the later examples


class _AdminForUnknown(RequestRouter):
    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        context = request.runtime.context if request.runtime else None
        role = getattr(context, "role", "admin")
        role = role if role in ("guest", "analyst") else "admin"
        return handler(request.override(tools=_tools_for(role, request)))


def test_a_property_test_fails_when_the_third_example_opens_up() -> None:
    calls = [0]

    class OpensFromTheThird(RequestRouter):
        def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
            context = request.runtime.context if request.runtime else None
            role = getattr(context, "role", "guest")
            if role not in ("guest", "analyst", "admin"):
                calls[0] += 1
                role = "admin" if calls[0] >= 3 else "guest"
            return handler(request.override(tools=_tools_for(role, request)))

    build = _routed(OpensFromTheThird)

    @settings(max_examples=10, database=None, suppress_health_check=list(HealthCheck))
    @given(role=st.sampled_from(["root", "nobody", "", "ROOT"]))
    def property_test(role: str) -> None:
        context = AgentContext(role)  # type: ignore[arg-type]
        contracts.check_fail_closed(build, context, least_privileged_context=GUEST, tiers=TIERS)

    with pytest.raises(ContractViolation):
        property_test()


@tool
def lookup(q: str) -> str:
    """Look something up."""
    return q


@tool
def secret(q: str) -> str:
    """Reads a secret."""
    return q


class ExcludesOnce(AgentMiddleware):
    """Hides and refuses ``secret`` in the first run it ever sees, then forgets (state a
    previous example left behind)."""

    runs = 0

    def before_agent(self, state: Any, runtime: Any) -> None:
        ExcludesOnce.runs += 1

    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        if ExcludesOnce.runs == 1:
            return handler(request.override(tools=[t for t in request.tools if t.name != "secret"]))
        return handler(request)

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        if ExcludesOnce.runs == 1 and request.tool_call.name == "secret":
            return ToolMessage(content="no", tool_call_id=request.tool_call.id, status="error")
        return handler(request)


def test_exclusion_holds_is_judged_afresh_on_each_example() -> None:
    ExcludesOnce.runs = 0

    def build(model: Any) -> Any:
        return create_agent(model, [lookup, secret], middleware=[ExcludesOnce()])

    contracts.check_exclusion_holds(build, {"secret"})  # the first example holds
    with pytest.raises(ContractViolation, match="secret"):
        _examples(lambda: contracts.check_exclusion_holds(build, {"secret"}), 3)


def test_a_tool_added_by_a_later_build_is_checked() -> None:
    """check_tool_closure over a factory whose later builds register a tool the model is
    shown but no executor runs: a check that kept the first build's tools would pass."""
    builds = [0]

    class ShowsGhost(AgentMiddleware):
        def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
            from hookproof.tools import ToolSchema

            ghost = ToolSchema(name="ghost", description="Never registered.")
            return handler(request.override(tools=[*request.tools, ghost]))

    def build(model: Any) -> Any:
        builds[0] += 1
        middleware = [ShowsGhost()] if builds[0] > 2 else []
        return create_agent(model, [lookup], middleware=middleware)

    contracts.check_tool_closure(build)  # the first example holds
    with pytest.raises(ContractViolation, match="ghost"):
        _examples(lambda: contracts.check_tool_closure(build), 4)


def test_injected_model_used_with_a_recording_model_kept_between_examples() -> None:
    """A factory that keeps the first model it is given and ignores the later ones: each
    example's run must be judged on the model it injected."""
    kept: list[Any] = []

    def build(model: Any) -> Any:
        if not kept:
            kept.append(model)
        return create_agent(kept[0])

    with pytest.raises(ContractViolation):
        _examples(lambda: contracts.check_injected_model_used(build), 3)


def test_recording_model_shared_across_runs_reports_each_runs_requests() -> None:
    model = RecordingModel(ScriptedModel(["a", "b"]))
    agent = create_agent(model, [lookup])
    first = agent.invoke({"messages": [("user", "one")]})
    second = agent.invoke({"messages": [("user", "two")]})
    assert [r.messages[-1].text for r in first.final_requests] == ["one"]
    assert [r.messages[-1].text for r in second.final_requests] == ["two"]
    assert [r.messages[-1].text for r in model.requests] == ["one", "two"]
