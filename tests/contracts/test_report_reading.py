"""A check's report reads a run's hooks and executed tools in one pass over its trace: the
same labels, in the same order, and the same tools as reading them one at a time (a call to
an unknown tool, a tool that raised and a run that crashed included)."""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.contracts._report import (
    Exercise,
    _read_trace,
    executed_tools,
    hook_labels,
)
from hookproof.examples.dynamic_routing import AgentContext, build_support_agent
from hookproof.models import call
from hookproof.runtime import create_agent, tool, wrap_tool_call
from hookproof.targets.reference import ReferenceTarget

SCRIPTS: list[Any] = [
    None,
    [call("public_search", {"query": "q"}), "done"],
    [call("internal_lookup", {"customer_id": "c1"}), "done"],
    [call("no_such_tool", {}), "done"],
    [[call("public_search", {"query": "a"}), call("no_such_tool", {})], "done"],
    [call("broken", {}), "done"],
    [call("echo", {"text": "hi"}), call("no_such_tool", {}), "done"],
    [ValueError("the model failed")],
]


@tool
def broken() -> str:
    """Always fails."""
    raise RuntimeError("broken tool")


@tool
def echo(text: str) -> str:
    """Says it back."""
    return text


@wrap_tool_call(name="Audit")
def audit(request: Any, handler: Any) -> Any:
    return handler(request)


def _routed(models: Any) -> Any:
    return build_support_agent(models)


def _plain(model: Any) -> Any:
    return create_agent(model, [broken, echo], middleware=[audit])


@pytest.mark.parametrize("script", SCRIPTS, ids=range(len(SCRIPTS)))
@pytest.mark.parametrize("context", [None, AgentContext("admin", "reasoning")])
def test_one_pass_reads_what_reading_hooks_and_tools_apart_reads(script: Any, context: Any) -> None:
    targets = [ReferenceTarget(_routed, tiers=("fast", "reasoning")), ReferenceTarget(_plain)]
    for target in targets:
        run = target.run(context=context, script=script)
        assert _read_trace(run) == (hook_labels(run.trace), executed_tools(run))
        exercise = Exercise("check")
        exercise.observe(run, ran={"seen_outside"})
        report = exercise.report()
        assert report.tool_calls_executed == tuple(sorted(executed_tools(run) | {"seen_outside"}))
        assert report.hooks_observed == tuple(dict.fromkeys(hook_labels(run.trace)))


def test_the_runs_read_show_hooks_executed_tools_and_unknown_ones() -> None:
    # The cases above are not empty: they hold hooks, tools that ran and tools that did not.
    routed = ReferenceTarget(_routed, tiers=("fast", "reasoning"))
    both = routed.run(context=AgentContext("admin", "reasoning"), script=SCRIPTS[4])
    hooks, executed = _read_trace(both)
    assert hooks and executed == {"public_search"}
    plain = ReferenceTarget(_plain).run(script=SCRIPTS[6])
    assert _read_trace(plain) == (["Audit.wrap_tool_call"] * 2, {"echo"})
    raised = ReferenceTarget(_plain).run(script=SCRIPTS[5])  # the tool's error ends the run
    assert raised.trace is None and _read_trace(raised) == ([], {"broken"})
    crashed = routed.run(script=SCRIPTS[7])
    assert crashed.trace is None and _read_trace(crashed) == ([], set())


def test_a_runs_visible_tools_are_a_fresh_set_per_read_that_a_check_may_change() -> None:
    # check_fail_closed compares a test's cached baseline with every example's run; the
    # names are worked out once, and every read still hands out a set of its own.
    run = ReferenceTarget(_routed, tiers=("fast", "reasoning")).run(context=None)
    shown = {name for request in run.final_requests for name in request.tool_names}
    read = run.visible_tools
    assert read == shown and "public_search" in shown and type(read) is set
    read.discard("public_search")
    assert run.visible_tools == shown and run.visible_tools is not run.visible_tools
