"""hookproof's agent contracts on Eino-dialect agents: each holds on the example agent and
catches a deliberately buggy twin."""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.contracts import (
    ContractViolation,
    check_exclusion_holds,
    check_fail_closed,
    check_isolation,
    check_tool_closure,
)
from hookproof.eino import (
    BaseChatModelAgentMiddleware,
    ChatModelAgent,
    ModelWrapper,
    RunContext,
    ToolInfo,
)
from hookproof.errors import UsageError
from hookproof.examples.eino_support import ROLE_TOOLS, RoleToolFilter, build_eino_support_agent
from hookproof.targets import EinoTarget, as_target

GUEST = {"role": "guest"}


def _support(model: Any) -> ChatModelAgent:
    return build_eino_support_agent(model)


class FailsOpen(RoleToolFilter):
    """Twin: an unknown role is treated as admin."""

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        allowed = ROLE_TOOLS.get(ctx.value("role"), ROLE_TOOLS["admin"])
        return ctx, state.override(tool_infos=[i for i in state.tool_infos if i.name in allowed])


class OnlyHides(RoleToolFilter):
    """Twin: hides tools from the model but executes a call to them anyway."""

    def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
        return endpoint


class ShowsPhantom(BaseChatModelAgentMiddleware):
    """Twin: shows the model a tool nobody can execute."""

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        phantom = ToolInfo(name="phantom", description="not executable")
        return ctx, state.override(tool_infos=[*state.tool_infos, phantom])


class LeakyFilter(BaseChatModelAgentMiddleware):
    """Twin: keeps the caller's role on the handler, which every run shares."""

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        self.role = ctx.value("role")
        return ctx, state

    def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
        allowed = ROLE_TOOLS.get(self.role, ROLE_TOOLS["guest"])

        class Filtered(ModelWrapper):
            def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
                options["tools"] = [i for i in options["tools"] if i.name in allowed]
                return self.inner.generate(ctx, messages, **options)

        return Filtered(model)


def _with(*handlers: Any) -> Any:
    return lambda model: build_eino_support_agent(model, handlers=list(handlers))


def test_eino_factories_get_the_eino_target() -> None:
    assert isinstance(as_target(_support), EinoTarget)
    with pytest.raises(UsageError, match="RunContext, a dict of its values, or None"):
        as_target(_support).run(context=42)


@pytest.mark.parametrize("context", [None, {}, {"role": "root"}, RunContext({"role": ""})])
def test_fail_closed_holds_and_catches_a_filter_that_fails_open(context: Any) -> None:
    check_fail_closed(_support, context, least_privileged_context=GUEST)
    with pytest.raises(ContractViolation, match="tools beyond the least-privileged set"):
        check_fail_closed(_with(FailsOpen()), context, least_privileged_context=GUEST)


def test_exclusion_holds_and_catches_a_filter_that_only_hides() -> None:
    check_exclusion_holds(_support, ["refund"], context={"role": "analyst"})
    with pytest.raises(ContractViolation, match=r"excluded tool\(s\) \['refund'\] executed"):
        check_exclusion_holds(_with(OnlyHides()), ["refund"], context={"role": "analyst"})


def test_tool_closure_holds_and_catches_a_phantom_tool() -> None:
    check_tool_closure(_support, context={"role": "admin"})
    with pytest.raises(ContractViolation, match="phantom: calling it failed"):
        check_tool_closure(_with(ShowsPhantom()), context=GUEST)


def test_isolation_holds_and_catches_a_handler_that_keeps_run_data_on_self() -> None:
    contexts = [{"role": "guest"}, {"role": "admin"}]
    check_isolation(_support, contexts, modes=["threads"])
    with pytest.raises(ContractViolation, match="saw another run's request"):
        check_isolation(_with(LeakyFilter()), contexts, modes=["threads"])
    with pytest.raises(UsageError, match=r"modes=\['threads'\]"):
        check_isolation(_support, contexts, modes=["asyncio"])


def test_hook_order_holds_on_eino_traces_and_knows_their_after_order() -> None:
    from dataclasses import replace

    from hookproof.contracts import check_hook_order
    from hookproof.models import call
    from hookproof.trace import Trace
    from tests.eino.helpers import Logger, agent_with, scripted

    run = agent_with(
        scripted(call("search", {"q": "x"}), "done"), handlers=[Logger("a", []), Logger("b", [])]
    ).run([("user", "x")])
    check_hook_order(run.trace)
    after = [e for e in run.trace if e.hook == "after_model_rewrite_state"]
    # a twin whose after hooks ran reversed, as LangChain would run them
    swapped = {after[0].seq: after[2], after[1].seq: after[3]}
    swapped |= {after[2].seq: after[0], after[3].seq: after[1]}
    events = [replace(swapped.get(e.seq, e), seq=e.seq) for e in run.trace]
    with pytest.raises(ContractViolation, match="is not the same as before_model_rewrite_state"):
        check_hook_order(Trace(tuple(events)))
