"""No verdict depends on the machine's speed: a check's own run time (the user's factory, the
agent runs) stays out of hypothesis' per-example deadline, in every phase and under the
default profile, while the rest of the test and unrelated tests keep their deadline.

The projects run in a fresh pytest with hypothesis' default settings (200 ms deadline, 250 ms
while generating) and no CI variable: the suite's own ``dev`` profile must not leak into them.
Slowness is a sleep well past the deadline, so these tests do not depend on timing either.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import hypothesis
import hypothesis.errors
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof import contracts, targets
from hookproof.contracts._registry import check_names
from hookproof.eino import BaseChatModelAgentMiddleware, ChatModelAgent
from hookproof.errors import UnsupportedHypothesisError
from hookproof.examples.dynamic_routing import BUSINESS_TOOLS, AgentContext, RequestRouter
from hookproof.models import ScriptedModel
from hookproof.runtime import before_model, create_agent

SLOW_FACTORY = """
import time

from hypothesis import given
from hypothesis import strategies as st

from hookproof import contracts
from hookproof.contracts import strategies
from hookproof.examples.dynamic_routing import BUSINESS_TOOLS, AgentContext, RequestRouter
from hookproof.runtime import create_agent

SLOW = 0.4  # seconds: past the 250 ms hypothesis allows an example while it generates
slow_builds = iter(range(3))  # the first builds are slow, like a cold start on a busy machine


def build_my_agent(models):
    if next(slow_builds, None) is not None:
        time.sleep(SLOW)
    return create_agent(models["fast"], list(BUSINESS_TOOLS), middleware=[RequestRouter(models)])


@given(ctx=strategies.contexts(AgentContext, trusted=False))
def test_router_fails_closed(ctx):
    contracts.check_fail_closed(build_my_agent, ctx,
                                least_privileged_context=AgentContext("guest", "fast"),
                                tiers=("fast", "reasoning"))


@given(st.none())
def test_unrelated_slow_test(_):
    time.sleep(SLOW)


@given(ctx=st.none())
def test_own_slowness_after_a_check_still_counts(ctx):
    contracts.check_fail_closed(build_my_agent, ctx,
                                least_privileged_context=AgentContext("guest", "fast"),
                                tiers=("fast", "reasoning"))
    time.sleep(SLOW)
"""

# A router that gives unknown roles every tool: the check fails, so hypothesis shrinks the
# context and replays the failure; every build is slow, in every one of those phases.
FAILING_CHECK = """
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof import contracts
from hookproof.examples.dynamic_routing import (
    BUSINESS_TOOL_NAMES, BUSINESS_TOOLS, AgentContext, RequestRouter, visible_business_tools,
)
from hookproof.runtime import create_agent

SLOW = 0.4
# The guest passes the check, slowly: before, that alone failed the test on its deadline.
CONTEXTS = st.sampled_from([AgentContext("guest", "fast"), AgentContext("root", "fast")])


class AdminByDefault(RequestRouter):
    def wrap_model_call(self, request, handler):
        role = getattr(request.runtime.context, "role", "admin")
        allowed = visible_business_tools(role if role in ("guest", "analyst") else "admin")
        tools = [t for t in request.tools if t.name not in BUSINESS_TOOL_NAMES or t.name in allowed]
        return handler(request.override(tools=tools))


def build_my_agent(models):
    time.sleep(SLOW)
    return create_agent(models["fast"], list(BUSINESS_TOOLS), middleware=[AdminByDefault(models)])


def check(ctx):
    contracts.check_fail_closed(build_my_agent, ctx,
                                least_privileged_context=AgentContext("guest", "fast"),
                                tiers=("fast", "reasoning"))


@given(ctx=CONTEXTS)
def test_default_settings(ctx):
    check(ctx)


@settings(derandomize=True, database=None)
@given(ctx=CONTEXTS)
def test_derandomized(ctx):
    check(ctx)
"""


def _run_with_default_hypothesis(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, source: str
) -> pytest.RunResult:
    for name in ("CI", "HYPOTHESIS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "400")  # summary lines then show the whole exception name
    pytester.makepyfile(test_project=source)
    return pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider")


@pytest.mark.slow
def test_a_slow_factory_does_not_fail_the_readme_pattern_on_timing(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _run_with_default_hypothesis(pytester, monkeypatch, SLOW_FACTORY)
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "FAILED test_project.py::test_unrelated_slow_test - *DeadlineExceeded*",
            "FAILED *::test_own_slowness_after_a_check_still_counts - *DeadlineExceeded*",
        ],
        consecutive=True,
    )


@pytest.mark.slow
def test_a_failing_check_with_a_slow_factory_reports_the_violation_in_every_phase(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _run_with_default_hypothesis(pytester, monkeypatch, FAILING_CHECK)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "FAILED test_project.py::test_default_settings - *ContractViolation*",
            "FAILED test_project.py::test_derandomized - *ContractViolation*",
        ],
        consecutive=True,
    )
    assert "Flaky" not in result.stdout.str()
    assert "DeadlineExceeded" not in result.stdout.str()


# -- which entry points keep their time out, and what happens when they cannot ---------------

CHECKS = check_names()


@pytest.mark.parametrize("name", CHECKS)
def test_every_check_keeps_its_run_time_out_of_the_deadline(name: str) -> None:
    assert getattr(getattr(contracts, name), "__hookproof_untimed__", False)


@pytest.mark.parametrize("name", targets.registered_targets())
def test_every_target_keeps_its_runs_out_of_the_deadline(name: str) -> None:
    try:
        target = targets.target_class(name)
    except ImportError:
        pytest.skip(f"the {name} target's framework is not installed")
    implemented = [
        method
        for method in ("run", "invoke", "ainvoke")
        if any(method in vars(cls) for cls in target.__mro__ if cls is not targets.Target)
    ]
    assert "run" in implemented
    for method in implemented:
        assert getattr(getattr(target, method), "__hookproof_untimed__", False), method


def _build(models: object) -> object:
    return create_agent(models["fast"], list(BUSINESS_TOOLS), middleware=[RequestRouter(models)])  # type: ignore[index]


def _check_inside_an_example(deadline: int | None) -> None:
    @settings(deadline=deadline, max_examples=1, database=None)
    @given(ctx=st.none())
    def run_the_check(ctx: object) -> None:
        contracts.check_fail_closed(
            _build,
            ctx,
            least_privileged_context=AgentContext("guest", "fast"),
            tiers=("fast", "reasoning"),
        )

    run_the_check()


def test_a_hypothesis_without_the_ledger_is_refused_when_a_deadline_counts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(hypothesis, "__version_info__", (6, 103, 0))
    with pytest.raises(UnsupportedHypothesisError) as refused:
        _check_inside_an_example(deadline=200)
    message = str(refused.value)
    assert "check_fail_closed runs inside a hypothesis example with a deadline of" in message
    assert "Install hypothesis>=6.104" in message
    assert "@settings(deadline=None)" in message


def test_a_hypothesis_without_the_ledger_is_fine_without_a_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(hypothesis, "__version_info__", (6, 103, 0))
    _check_inside_an_example(deadline=None)
    contracts.check_fail_closed(
        _build,
        None,
        least_privileged_context=AgentContext("guest", "fast"),
        tiers=("fast", "reasoning"),
    )


# -- hookproof's own agents: building and running them is hookproof's time too ----------------

SLOW = 0.3  # seconds, past the 200 ms deadline these examples set


@before_model
def slow_hook(state: object, runtime: object) -> None:
    time.sleep(SLOW)


class SlowHandler(BaseChatModelAgentMiddleware):
    def before_agent(self, ctx: object, state: object) -> object:
        time.sleep(SLOW)
        return ctx, state


def _run_reference_agent() -> None:
    agent = create_agent(ScriptedModel(["ok"]), [], middleware=[slow_hook])
    agent.invoke({"messages": [("user", "hi")]})


def _run_eino_agent() -> None:
    run = ChatModelAgent(model=ScriptedModel(["ok"]), handlers=[SlowHandler()]).run(
        [("user", "hi")]
    )
    assert run.error is None


def _in_an_example_with_a_deadline(body: Callable[[], None]) -> None:
    @settings(deadline=200, max_examples=2, database=None)
    @given(st.none())
    def example(_: None) -> None:
        body()

    example()


@pytest.mark.parametrize("run_agent", [_run_reference_agent, _run_eino_agent])
def test_a_slow_agent_run_does_not_count_against_the_deadline(
    run_agent: Callable[[], None],
) -> None:
    _in_an_example_with_a_deadline(run_agent)


def test_the_test_s_own_time_still_counts() -> None:
    def slow_test_code() -> None:
        _run_reference_agent()
        time.sleep(SLOW)

    with pytest.raises(hypothesis.errors.DeadlineExceeded):
        _in_an_example_with_a_deadline(slow_test_code)


def test_a_section_books_into_the_running_example_past_a_stale_booking() -> None:
    # A booking left behind by an example that finished (an abandoned agent coroutine closed
    # later may restore one) must not stop the next example's sections from booking.
    from hypothesis.control import current_build_context

    from hookproof._support import untimed

    class Finished:
        frozen = True

    booked: list[dict[str, float]] = []

    @settings(max_examples=1, database=None, deadline=None)
    @given(st.none())
    def example(_: None) -> None:
        with untimed.untimed_section("outer"), untimed.untimed_section("inner"):
            pass
        booked.append(dict(current_build_context().data._stateful_run_times))

    token = untimed._booking.set(Finished())
    try:
        example()
    finally:
        untimed._booking.reset(token)
    assert "execute:hookproof:outer" in booked[0]
    assert "execute:hookproof:inner" not in booked[0]  # booked once, by the outer section
