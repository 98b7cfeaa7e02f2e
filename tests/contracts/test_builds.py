"""How often a check calls the factory: once per run, the build that recognises the
factory's framework included (the first run takes that agent)."""

from __future__ import annotations

from typing import Any

from hookproof import _exercised, contracts
from hookproof.examples.dynamic_routing import AgentContext, build_support_agent
from hookproof.targets import as_target

GUEST = AgentContext("guest", "fast")
TIERS = ("fast", "reasoning")


class CountingFactory:
    def __init__(self) -> None:
        self.builds = 0

    def __call__(self, models: Any) -> Any:
        self.builds += 1
        return build_support_agent(models)


def test_a_check_builds_the_agent_once_per_run() -> None:
    build = CountingFactory()
    report = contracts.check_fail_closed(
        build, AgentContext("root"), least_privileged_context=GUEST, tiers=TIERS
    )
    assert report.runs == build.builds == 2  # the baseline's run and the untrusted one's


def test_a_property_test_builds_once_per_example_after_the_first() -> None:
    build = CountingFactory()
    with _exercised.collecting():
        for context in (None, "x", 1, {}):
            contracts.check_fail_closed(build, context, least_privileged_context=GUEST, tiers=TIERS)
    assert build.builds == 2 + 3  # the first example's two runs, then one run per example


def test_the_recognising_build_serves_one_run_only() -> None:
    build = CountingFactory()
    target = as_target(build, TIERS)
    first, second = target.run(context=GUEST), target.run(context=GUEST)
    assert build.builds == 2
    assert set(first.models) == set(second.models) == set(TIERS)
    assert all(first.models[n] is not second.models[n] for n in TIERS)
    assert len(first.final_requests) == len(second.final_requests) == 1
