"""On the reference engine a check builds a LangChain or deepagents app once per test and
reuses it while each run leaves it as built: the runs are those of a fresh build (a
differential over generated contexts and scripts), and an app that keeps state between runs
(on a middleware's ``self``, in a closure) makes every later run build anew, so its bug is
still caught, where a reuse that did not look would pass it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run this")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, wrap_model_call

from hookproof import _exercised, contracts
from hookproof.adapters.langchain import _reuse
from hookproof.adapters.langchain.target import LangChainTarget
from hookproof.contracts import ContractViolation, strategies
from hookproof.errors import EngineDisagreementError
from hookproof.models import call
from hookproof.runtime import Agent
from tests.adapters.reuse_apps import (
    GUEST,
    INTRUDER,
    MEMBER,
    Ctx,
    refund,
    search,
)
from tests.adapters.reuse_apps import shows_refund as _shows_refund


class StickyRoleRouter(AgentMiddleware):
    """Resolves the role once per build and keeps it on ``self`` (state between runs)."""

    def __init__(self) -> None:
        super().__init__()
        self.context: Any = None
        self.resolved = False

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        if not self.resolved:
            self.context, self.resolved = request.runtime.context, True
        shown = [t for t in request.tools if t.name != "refund" or _shows_refund(self.context)]
        return handler(request.override(tools=shown))


def _counting(build: Callable[[Any], Any], built: list[str]) -> Callable[[Any], Any]:
    def counted(model: Any) -> Any:
        agent = build(model)
        built.append("reference" if isinstance(agent, Agent) else "graph")
        return agent

    return counted


def _sticky_app(model: Any) -> Any:
    return create_agent(model, [search, refund], middleware=[StickyRoleRouter()])


def _sticky_deep_app(model: Any) -> Any:
    pytest.importorskip("deepagents", reason="install hookproof[deepagents] to run this")
    from deepagents import create_deep_agent

    return create_deep_agent(model=model, tools=[search, refund], middleware=[StickyRoleRouter()])


def _closure_app(model: Any) -> Any:
    """Hides refund from every run after the first one of a build (a closure's list)."""
    calls: list[str] = []

    @wrap_model_call
    def first_run_unfiltered(request: Any, handler: Any) -> Any:
        calls.append("call")
        shown = [t for t in request.tools if t.name != "refund" or len(calls) == 1]
        return handler(request.override(tools=shown))

    return create_agent(model, [search, refund], middleware=[first_run_unfiltered])


def _deep_example_app(models: Any) -> Any:
    pytest.importorskip("deepagents", reason="install hookproof[deepagents] to run this")
    from hookproof.examples.langchain_routing import build_langchain_deep_agent

    researcher = {"name": "researcher", "description": "Researches.", "system_prompt": "."}
    return build_langchain_deep_agent(models, subagents=[researcher])


def _sequence(build: Callable[[Any], Any], contexts: list[Any], engine: Any = "auto") -> list[Any]:
    """check_fail_closed on each context in one test: its reports, or the error raised."""
    outcomes: list[Any] = []
    with _exercised.collecting():
        for context in contexts:
            try:
                outcomes.append(
                    contracts.check_fail_closed(
                        build, context, least_privileged_context=GUEST, engine=engine
                    )
                )
            except ContractViolation as error:
                outcomes.append(error)
    return outcomes


@pytest.mark.parametrize("app", [_sticky_app, _sticky_deep_app], ids=["create_agent", "deep"])
def test_state_kept_on_self_makes_every_later_run_build_anew(app: Any) -> None:
    # the 1st example runs on the graph, the 2nd is the sampled 1st on the reference engine,
    # the 3rd is not sampled: only the reference engine judges it
    first, second, third = _sequence(app, [MEMBER, MEMBER, INTRUDER])
    assert (first.engine, second.engine) == ("graph", "reference")
    assert "every run builds the app anew: a run changed the agent's" in second.engine_note
    assert "resolved" in second.engine_note or "context" in second.engine_note
    assert isinstance(third, ContractViolation)
    assert not isinstance(third, EngineDisagreementError)
    assert third.engine == "reference, confirmed on the real graph"
    assert "tools beyond the least-privileged set: ['refund']" in str(third)


def test_without_the_state_check_the_sticky_bug_would_pass(monkeypatch: Any) -> None:
    """The state check is what catches it: a reuse that sees no state passes the bug."""
    monkeypatch.setattr(_reuse, "state_print", lambda *args, **kwargs: [])
    *_, third = _sequence(_sticky_app, [MEMBER, MEMBER, INTRUDER])
    assert isinstance(third, contracts.CheckReport)  # the false pass the check prevents


@pytest.mark.parametrize("app", [_sticky_app, _sticky_deep_app], ids=["create_agent", "deep"])
def test_on_the_graph_state_kept_on_self_makes_every_later_run_build_anew(app: Any) -> None:
    """The graph reuses a build under the same guard: the sticky bug is still caught there,
    and only the guard catches it (without it the graph's verdict is a false pass)."""
    *_, third = _sequence(app, [MEMBER, INTRUDER], engine="graph")
    assert isinstance(third, ContractViolation)
    assert "tools beyond the least-privileged set: ['refund']" in str(third)


def test_on_the_graph_without_the_state_check_the_sticky_bug_would_pass(
    monkeypatch: Any,
) -> None:
    monkeypatch.setattr(_reuse, "state_print", lambda *args, **kwargs: [])
    *_, third = _sequence(_sticky_app, [MEMBER, INTRUDER], engine="graph")
    assert isinstance(third, contracts.CheckReport)  # the false pass the guard prevents


def test_a_stateless_deepagents_app_is_built_once_per_test_on_the_graph() -> None:
    built: list[str] = []
    build = _counting(_deep_example_app, built)
    from hookproof.examples.dynamic_routing import AgentContext

    with _exercised.collecting():
        for context in [None, Ctx("x"), "admin", 7, {"role": "admin"}]:
            contracts.check_fail_closed(
                build,
                context,
                least_privileged_context=AgentContext("guest", "fast"),
                tiers=("fast", "reasoning"),
                engine="graph",
            )
    # the build that recognised the factory as a LangChain app serves every run of the test
    assert built == ["graph"]


def test_state_in_a_closure_makes_every_later_run_build_anew() -> None:
    _, second, third = _sequence(_closure_app, [MEMBER, MEMBER, MEMBER])
    assert "<cell" in second.engine_note
    # every run of a fresh build is its first: refund shows for a member as for the guest
    assert isinstance(third, contracts.CheckReport)
    target = LangChainTarget(_closure_app).bridged_target()
    assert target is not None
    runs = [target.run(context=MEMBER) for _ in range(3)]
    assert [sorted(run.visible_tools) for run in runs] == [["refund", "search"]] * 3


def test_a_stateless_deepagents_app_is_built_once_per_test_on_the_reference_engine() -> None:
    built: list[str] = []
    build = _counting(_deep_example_app, built)
    examples = [None, Ctx("x"), "admin", 7, None, {"role": "admin"}, Ctx("y"), None]
    from hookproof.examples.dynamic_routing import AgentContext

    outcomes = []
    with _exercised.collecting():
        for context in examples:
            outcomes.append(
                contracts.check_fail_closed(
                    build,
                    context,
                    least_privileged_context=AgentContext("guest", "fast"),
                    tiers=("fast", "reasoning"),
                )
            )
    assert [o.engine for o in outcomes] == ["graph"] + ["reference"] * 7
    assert all("anew" not in o.engine_note for o in outcomes)
    # one build to choose the engine, one reused for every run on the reference engine
    assert built.count("reference") == 2


SCRIPTS = st.sampled_from(
    [
        None,
        ["done"],
        [call("search", {"query": "q"}), "done"],
        [call("refund", {"order_id": "1"}), "done"],
        [call("task", {"description": "look", "subagent_type": "general-purpose"}), "x", "y"],
        [call("missing_tool", {}), "done"],
        [ValueError("model down")],
    ]
)


class RoleRouter(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        context = request.runtime.context
        shown = [t for t in request.tools if t.name != "refund" or _shows_refund(context)]
        return handler(request.override(tools=shown))


def _deep_router_app(model: Any) -> Any:
    pytest.importorskip("deepagents", reason="install hookproof[deepagents] to run this")
    from deepagents import create_deep_agent

    return create_deep_agent(model=model, tools=[search, refund], middleware=[RoleRouter()])


UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def _observed(run: Any) -> str:
    """What a run showed; LangChain names each model answer (and, on its graph, each tool
    answer) by a fresh uuid, left out."""
    error = None if run.error is None else (type(run.error), str(run.error))
    shown = repr((run.final_requests, run.messages, run.called, error))
    return re.sub(UUID, "(uuid)", re.sub(r"lc_run--[0-9a-f-]+", "lc_run--(uuid)", shown))


def _on_reference(app: Any) -> Any:
    return LangChainTarget(app).bridged_target()


@pytest.mark.parametrize("engine", [_on_reference, LangChainTarget], ids=["reference", "graph"])
@pytest.mark.parametrize("app", [_deep_router_app, _sticky_deep_app], ids=["stateless", "sticky"])
def test_a_reused_build_runs_as_a_fresh_build_does(app: Any, engine: Any) -> None:
    """The same FinalRequests, messages, models called and errors as a fresh build's run, on
    generated contexts and scripts, for a stateless app (reused) and a stateful one
    (rebuilt), on the reference engine and on the graph."""
    reused = engine(app)
    assert reused is not None

    @settings(
        max_examples=10,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(context=strategies.contexts(Ctx), script=SCRIPTS)
    def same_as_fresh(context: Any, script: Any) -> None:
        fresh = engine(app)
        assert fresh is not None
        expected = _observed(fresh.run(context=context, script=script))
        assert _observed(reused.run(context=context, script=script)) == expected

    same_as_fresh()
    assert bool(getattr(reused, "rebuilt_because", "")) == (app is _sticky_deep_app)


IMPORTED_FIRST = """
import sys
from hookproof import _exercised, contracts
import hookproof.adapters.langchain
assert "langchain.agents.factory" not in sys.modules, "the case needs it unloaded"
from hookproof.examples.dynamic_routing import AgentContext
from hookproof.examples.langchain_routing import build_langchain_deep_agent
guest = AgentContext("guest", "fast")
with _exercised.collecting():
    for context in (None, None):
        report = contracts.check_fail_closed(
            build_langchain_deep_agent, context, least_privileged_context=guest,
            tiers=("fast", "reasoning"),
        )
print(report.engine, report.engine_note)
"""


def test_the_reference_engine_runs_the_app_when_hookproof_is_imported_before_langchain() -> None:
    """LangChain's create_agent is first looked for inside the swap: it is still found."""
    pytest.importorskip("deepagents", reason="install hookproof[deepagents] to run this")
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", IMPORTED_FIRST], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "reference confirmed on the real graph"


SHOWN = {"refund": True}  # what a fixture would patch: read by the factory while it builds


def _configured_app(model: Any) -> Any:
    tools = [search, refund] if SHOWN["refund"] else [search]
    return create_agent(model, tools)


@pytest.mark.parametrize("engine", [_on_reference, LangChainTarget], ids=["reference", "graph"])
def test_a_target_kept_across_tests_builds_anew_in_each(engine: Any, monkeypatch: Any) -> None:
    """A build is reused within its test only: the next test's fixture (here a patched
    setting the factory reads while building) shows, where a build kept across tests would
    still offer the first test's tools."""
    target = engine(_configured_app)
    with _exercised.collecting():
        assert sorted(target.run(context=MEMBER).visible_tools) == ["refund", "search"]
        monkeypatch.setitem(SHOWN, "refund", False)  # within a test: the kept build serves
        assert sorted(target.run(context=MEMBER).visible_tools) == ["refund", "search"]
    with _exercised.collecting():  # the next test
        assert sorted(target.run(context=MEMBER).visible_tools) == ["search"]
