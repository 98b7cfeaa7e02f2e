"""check_fail_closed on LangChain create_agent and deepagents apps runs a test's first
example on the real graph and the next ones on the reference engine (the app's code
unchanged, through the bridge), confirmed on the real graph: the buggy twin is caught and the
fixed twin passes there; engines made to disagree fail the check instead of passing it; an
app the bridge refuses runs on the real graph and says so."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run this")

import langchain.agents
import langchain.agents.factory
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage

from hookproof import _exercised, contracts
from hookproof.contracts import ContractViolation
from hookproof.errors import EngineDisagreementError, UsageError
from hookproof.runtime import create_agent as runtime_create_agent
from tests.adapters.reuse_apps import GUEST, INTRUDER, Ctx, refund, search


def _admin(context: Any) -> bool:
    return isinstance(context, Ctx) and context.role == "admin"


class RoleRouter(AgentMiddleware):  # type: ignore[type-arg]
    """The fixed twin: refund only for an admin, anything else degrades to the guest's view."""

    def shows_refund(self, context: Any, handler: Any) -> bool:
        return _admin(context)

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        context = request.runtime.context
        shown = [
            t for t in request.tools if t.name != "refund" or self.shows_refund(context, handler)
        ]
        return handler(request.override(tools=shown))

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        call = request.tool_call
        if call["name"] != "refund" or _admin(request.runtime.context):
            return handler(request)
        return ToolMessage("not allowed", tool_call_id=call["id"], status="error")


class DenyListRouter(RoleRouter):
    """The buggy twin: hides refund from the roles it knows, so an unknown role sees it."""

    def shows_refund(self, context: Any, handler: Any) -> bool:
        return getattr(context, "role", "guest") not in ("guest", "member")


def _on_reference(handler: Any) -> bool:
    """An engine-revealing detail: whether the reference engine's loop is on the stack."""
    frame = sys._getframe()
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith("hookproof._engine"):
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


class LeaksOnGraphOnly(RoleRouter):
    """Leaks refund to an unknown role on LangChain's graph, never on the reference engine."""

    def shows_refund(self, context: Any, handler: Any) -> bool:
        return _admin(context) or (not _on_reference(handler) and context != GUEST)


class LeaksOnReferenceOnly(RoleRouter):
    def shows_refund(self, context: Any, handler: Any) -> bool:
        return _admin(context) or (_on_reference(handler) and context != GUEST)


def _langchain(router: type[RoleRouter]) -> Callable[[Any], Any]:
    return lambda model: create_agent(
        model, [search, refund], middleware=[router()], context_schema=Ctx
    )


def _deepagents(router: type[RoleRouter]) -> Callable[[Any], Any]:
    pytest.importorskip("deepagents", reason="install hookproof[deepagents] to run this")
    from deepagents import create_deep_agent

    researcher = {"name": "researcher", "description": "research", "system_prompt": "help"}
    return lambda model: create_deep_agent(
        model=model,
        tools=[search, refund],
        middleware=[router()],
        subagents=[{**researcher, "middleware": [router()]}],
        context_schema=Ctx,
    )


APPS = [pytest.param(_langchain, id="create_agent"), pytest.param(_deepagents, id="deepagents")]


def _fail_closed(build: Callable[[Any], Any], **options: Any) -> contracts.CheckReport:
    return contracts.check_fail_closed(build, INTRUDER, least_privileged_context=GUEST, **options)


def _second_example(build: Callable[[Any], Any], **options: Any) -> contracts.CheckReport:
    """The check's second example in one test (the first runs on the real graph alone)."""
    with _exercised.collecting():
        first: Any
        try:
            first = _fail_closed(build, **options)
        except ContractViolation as error:
            first = error
        assert first.engine == "graph"
        return _fail_closed(build, **options)


@pytest.mark.parametrize("app", APPS)
def test_the_fast_path_catches_the_buggy_twin_and_passes_the_fixed_one(app: Any) -> None:
    leak = r"tools beyond the least-privileged set: \['refund'\]"
    with pytest.raises(ContractViolation, match=leak) as error:
        _second_example(app(DenyListRouter))
    assert error.value.engine == "reference, confirmed on the real graph"
    report = _second_example(app(RoleRouter))
    assert (report.engine, report.engine_note) == ("reference", "confirmed on the real graph")
    assert (report.examples_on_reference, report.confirmed_on_graph) == (1, 1)


@pytest.mark.parametrize("app", APPS)
def test_a_pass_the_real_graph_does_not_share_fails_instead_of_passing(app: Any) -> None:
    with pytest.raises(EngineDisagreementError) as error:
        _second_example(app(LeaksOnGraphOnly))
    message = str(error.value)
    assert "passed context=Ctx(role='intruder') on the reference engine" in message
    assert "What the real graph found:" in message and "['refund']" in message
    assert "engine='graph'" in message
    with pytest.raises(ContractViolation, match="refund"):
        _fail_closed(app(LeaksOnGraphOnly), engine="graph")


@pytest.mark.parametrize("app", APPS)
def test_a_violation_the_real_graph_does_not_show_is_not_reported(app: Any) -> None:
    with pytest.raises(EngineDisagreementError) as error:
        _second_example(app(LeaksOnReferenceOnly))
    message = str(error.value)
    assert "found a violation for context=Ctx(role='intruder') on the reference engine" in message
    assert "the real graph passes the same example" in message
    assert not isinstance(error.value, ContractViolation)
    assert _fail_closed(app(LeaksOnReferenceOnly), engine="graph").engine == "graph"


def test_the_graph_confirms_the_first_passing_example_of_a_test_and_then_a_spread() -> None:
    build = _langchain(RoleRouter)
    with _exercised.collecting():
        reports = [_fail_closed(build) for _ in range(18)]
    assert reports[0].engine == "graph"
    confirmed = [r.examples_on_reference for r in reports[1:] if r.engine_note]
    assert confirmed == [1, 4, 16]
    assert [r.confirmed_on_graph for r in reports][-1] == 3
    with _exercised.collecting():
        few = [_fail_closed(build, confirm=1) for _ in range(6)]
    assert [r.confirmed_on_graph for r in few] == [0, 1, 1, 1, 1, 1]


def test_a_sampled_out_pass_is_not_run_on_the_graph() -> None:
    """Between samples only the reference engine runs: the gap shows at the next sample."""
    build = _langchain(LeaksOnGraphOnly)
    with _exercised.collecting():
        with pytest.raises(ContractViolation):  # the first example, on the real graph
            _fail_closed(build)
        with pytest.raises(EngineDisagreementError):
            _fail_closed(build)
        assert _fail_closed(build).engine == "reference"
        assert _fail_closed(build).engine == "reference"
        with pytest.raises(EngineDisagreementError):
            _fail_closed(build)


def test_an_app_the_bridge_refuses_runs_on_the_real_graph_and_says_why() -> None:
    def build(model: Any) -> Any:  # the reference engine has no interrupt_before
        return create_agent(
            model, [search, refund], middleware=[RoleRouter()], interrupt_before=["tools"]
        )

    report = _second_example(build)
    assert report.engine == "graph"
    assert "the reference engine cannot build the app" in report.engine_note
    assert "interrupt_before" in report.engine_note
    assert "every example runs on the real graph" in report.engine_note
    with pytest.raises(UsageError, match="engine='reference' was asked for"):
        _fail_closed(build, engine="reference")
    with pytest.raises(ContractViolation, match="refund"):
        _fail_closed(lambda model: build_with(model, DenyListRouter))


def build_with(model: Any, router: type[RoleRouter]) -> Any:
    return create_agent(model, [search, refund], middleware=[router()], interrupt_before=["tools"])


def test_engine_choices_and_bad_options() -> None:
    build = _langchain(RoleRouter)
    graph = _fail_closed(build, engine="graph")
    assert (graph.engine, graph.engine_note) == ("graph", "engine='graph' was asked for")
    assert graph.examples_on_reference == graph.confirmed_on_graph == 0
    with _exercised.collecting():
        forced = _fail_closed(build, engine="reference")
    assert (forced.engine, forced.confirmed_on_graph) == ("reference", 1)
    with pytest.raises(UsageError, match=re.escape("engine='fast' is not an engine")):
        _fail_closed(build, engine="fast")
    with pytest.raises(UsageError, match="Pass confirm=1 or more"):
        _fail_closed(build, confirm=0)


def test_a_native_app_has_no_engine_to_choose() -> None:
    from hookproof.runtime import AgentMiddleware as NativeMiddleware

    class NativeRouter(NativeMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request.override(tools=[t for t in request.tools if t.name != "x"]))

    report = _fail_closed(
        lambda model: runtime_create_agent(model, [], middleware=[NativeRouter()])
    )
    assert (report.engine, report.engine_note) == (None, "")
    with pytest.raises(UsageError, match="has no bridge to the reference engine"):
        _fail_closed(lambda model: runtime_create_agent(model, []), engine="reference")


def test_the_swap_is_undone_after_the_check() -> None:
    genuine = langchain.agents.factory.create_agent
    _fail_closed(_langchain(RoleRouter))
    assert langchain.agents.create_agent is genuine
    assert create_agent is genuine
    deepagents_graph = pytest.importorskip("deepagents.graph")
    _fail_closed(_deepagents(RoleRouter))
    assert deepagents_graph.create_agent is genuine


def _deepagents_subagent(*, filtered: bool) -> Callable[[Any], Any]:
    """A subagent declared without middleware inherits refund, unfiltered (the buggy twin)."""
    pytest.importorskip("deepagents", reason="install hookproof[deepagents] to run this")
    from deepagents import create_deep_agent

    def spec(name: str) -> dict[str, Any]:
        base = {"name": name, "description": name, "system_prompt": "."}
        return {**base, "middleware": [RoleRouter()]} if filtered else base

    return lambda model: create_deep_agent(
        model=model,
        tools=[search, refund],
        middleware=[RoleRouter()],
        subagents=[spec("general-purpose"), spec("researcher")],
        context_schema=Ctx,
    )


def test_delegation_on_the_fast_path_catches_the_buggy_twin_and_passes_the_fixed_one() -> None:
    buggy, fixed = _deepagents_subagent(filtered=False), _deepagents_subagent(filtered=True)
    with _exercised.collecting():
        for engine in ("graph", "reference, confirmed on the real graph"):
            hidden = "refund is hidden from the main agent"
            with pytest.raises(ContractViolation, match=hidden) as error:
                contracts.check_delegation_contained(buggy, GUEST)
            assert error.value.engine == engine
    with _exercised.collecting():
        reports = [contracts.check_delegation_contained(fixed, GUEST) for _ in range(2)]
    assert [r.engine for r in reports] == ["graph", "reference"]
    assert reports[1].confirmed_on_graph == 1
    assert reports[1].access_table() == reports[0].access_table()


def test_a_module_loaded_in_place_of_another_is_swept_too() -> None:
    """Unloading one module and loading another keeps sys.modules' size: the module that
    binds create_agent must still build on the reference engine inside the scope."""
    from types import ModuleType

    from hookproof.adapters.langchain import ScriptedChatModel
    from hookproof.adapters.langchain._reference_scope import reference_engine_scope
    from hookproof.runtime import Agent

    genuine = langchain.agents.factory.create_agent
    with reference_engine_scope(lambda model: None):  # sweeps with the modules loaded now
        pass
    filler = next(reversed(sys.modules))
    replaced = sys.modules.pop(filler)
    app = ModuleType("hookproof_test_late_app")
    app.create_agent = genuine  # type: ignore[attr-defined]
    sys.modules[app.__name__] = app
    try:
        with reference_engine_scope(lambda model: None):
            built = app.create_agent(ScriptedChatModel(["done"]), tools=[])
        assert isinstance(built, Agent)
        assert app.create_agent is genuine
    finally:
        del sys.modules[app.__name__]
        sys.modules[filler] = replaced
