"""Every contract catches its buggy twin and passes the fixed one."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof import contracts
from hookproof.contracts import ContractViolation, strategies
from hookproof.contracts._contexts import forged as forged_context
from hookproof.examples.dynamic_routing import (
    BUSINESS_TOOL_NAMES,
    BUSINESS_TOOLS,
    AgentContext,
    RequestRouter,
    RuntimeToolRegistry,
    ScopeNoteMiddleware,
    calculate_tip,
    visible_business_tools,
)
from hookproof.messages import SystemMessage, ToolMessage
from hookproof.models import ScriptedModel, call
from hookproof.runtime import AgentMiddleware, ModelRequest, create_agent
from hookproof.trace import Trace, TraceEvent
from tests.helpers import RetriesThrice, lookup

GUEST = AgentContext("guest", "fast")
TIERS = ("fast", "reasoning")


def _violates(check: Callable[..., None], *args: Any, **kwargs: Any) -> str:
    with pytest.raises(ContractViolation) as caught:
        check(*args, **kwargs)
    assert isinstance(caught.value, AssertionError)
    return str(caught.value)


# -- in-place request mutation ----------------------------------------------------------------


class MutatingFilter(AgentMiddleware):
    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        request.tools.clear()
        return handler(request)


class OverrideFilter(AgentMiddleware):
    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        return handler(request.override(tools=[t for t in request.tools if t.name != "x"]))


def test_request_not_mutated() -> None:
    message = _violates(contracts.check_request_not_mutated, MutatingFilter())
    assert "wrap_model_call tried to change the request in place" in message
    assert "def test_replay_request_not_mutated():" in message
    contracts.check_request_not_mutated(OverrideFilter())
    contracts.check_request_not_mutated(RequestRouter({"fast": "f", "reasoning": "r"}))


# -- unknown role -> admin; crash on missing runtime ----------------------------------------


class AdminByDefaultRouter(RequestRouter):
    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        context = request.runtime.context if request.runtime else None
        role = getattr(context, "role", "admin")
        role = role if role in ("guest", "analyst") else "admin"
        allowed = visible_business_tools(role)
        tools = [t for t in request.tools if t.name not in BUSINESS_TOOL_NAMES or t.name in allowed]
        return handler(request.override(tools=tools))


class CrashingRouter(RequestRouter):
    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        role = request.runtime.context.role  # type: ignore[union-attr]
        allowed = visible_business_tools(role)
        tools = [t for t in request.tools if t.name not in BUSINESS_TOOL_NAMES or t.name in allowed]
        return handler(request.override(tools=tools))


def _build_with(router: type[RequestRouter]) -> Callable[[Any], Any]:
    def build(models: Any) -> Any:
        return create_agent(models["fast"], list(BUSINESS_TOOLS), middleware=[router(models)])

    return build


def test_fail_closed_catches_unknown_role_to_admin() -> None:
    message = _violates(
        contracts.check_fail_closed,
        _build_with(AdminByDefaultRouter),
        AgentContext("root"),  # type: ignore[arg-type]
        least_privileged_context=GUEST,
        tiers=TIERS,
    )
    assert (
        "tools beyond the least-privileged set: ['export_customer_report', 'internal_lookup']"
        in message
    )
    contracts.check_fail_closed(
        _build_with(RequestRouter),
        AgentContext("root"),
        least_privileged_context=GUEST,
        tiers=TIERS,  # type: ignore[arg-type]
    )


def test_fail_closed_counts_a_crash_as_a_violation() -> None:
    message = _violates(
        contracts.check_fail_closed,
        _build_with(CrashingRouter),
        None,
        least_privileged_context=GUEST,
        tiers=TIERS,
    )
    assert "the run crashed instead of degrading: AttributeError" in message
    contracts.check_fail_closed(
        _build_with(RequestRouter), None, least_privileged_context=GUEST, tiers=TIERS
    )


def test_fail_closed_catches_another_model() -> None:
    class TierTrusting(RequestRouter):
        def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
            tier = getattr(request.runtime.context, "model_tier", "fast")  # type: ignore[union-attr]
            return handler(request.override(model=self.models.get(tier, self.models["fast"])))

    forged = forged_context(AgentContext, {"role": "root", "model_tier": "reasoning"})
    message = _violates(
        contracts.check_fail_closed,
        _build_with(TierTrusting),
        forged,
        least_privileged_context=GUEST,
        tiers=TIERS,
    )
    assert "model(s) ['reasoning'] instead of ['fast']" in message


@settings(max_examples=60)
@given(context=strategies.contexts(AgentContext, trusted=False))
def test_fail_closed_property_on_the_example_router(context: Any) -> None:
    contracts.check_fail_closed(
        _build_with(RequestRouter), context, least_privileged_context=GUEST, tiers=TIERS
    )


class SwitchableRouter(AdminByDefaultRouter):
    """Admin tools for every role while ``open_to_all`` is set (a setting a fixture flips)."""

    open_to_all = True

    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        if SwitchableRouter.open_to_all:
            return handler(request)
        return super().wrap_model_call(request, handler)


def test_fail_closed_takes_no_baseline_from_an_earlier_test(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # One factory, two tests: in the first, the least-privileged context sees every tool, so
    # an unknown role seeing them too is no gain; in the second, a fixture closes the guest
    # down, and the unknown role's admin tools are a gain. A baseline kept from the first test
    # would hide it.
    from hookproof import _exercised

    build = _build_with(SwitchableRouter)
    check = partial(
        contracts.check_fail_closed,
        build,
        AgentContext("root"),  # type: ignore[arg-type]
        least_privileged_context=GUEST,
        tiers=TIERS,
    )
    with _exercised.collecting():
        check()
    monkeypatch.setattr(SwitchableRouter, "open_to_all", False)
    with _exercised.collecting():
        message = _violates(check)
    assert "tools beyond the least-privileged set" in message


# -- falsy injected model -------------------------------------------------------------------


def test_injected_model_used() -> None:
    def careless(model: Any) -> Any:
        return create_agent(model or ScriptedModel(["default"], name="default"))

    def careful(model: Any) -> Any:
        return create_agent(model if model is not None else ScriptedModel(["default"]))

    message = _violates(contracts.check_injected_model_used, careless)
    assert "`is not None`" in message
    contracts.check_injected_model_used(careful)


# -- system message rebuilt without metadata ------------------------------------------------


class RebuildingNote(AgentMiddleware):
    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        text = (request.system_prompt or "") + "\nScope: c-1."
        return handler(request.override(system_message=SystemMessage(content=text)))


def test_metadata_preserved() -> None:
    message = _violates(contracts.check_metadata_preserved, RebuildingNote())
    assert "id 'system-1' became None" in message
    assert "block 0 (text) was lost or altered" in message
    contracts.check_metadata_preserved(ScopeNoteMiddleware())


@given(system=strategies.system_messages())
def test_metadata_preserved_property(system: SystemMessage) -> None:
    contracts.check_metadata_preserved(ScopeNoteMiddleware(), system)


# -- schema-only dynamic tool ---------------------------------------------------------------


class SchemaOnly(AgentMiddleware):
    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        return handler(request.override(tools=[*request.tools, calculate_tip]))

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        return handler(request)


def test_tool_closure() -> None:
    def broken(model: Any) -> Any:
        return create_agent(model, [lookup], middleware=[SchemaOnly()])

    def fixed(model: Any) -> Any:
        return create_agent(model, [lookup], middleware=[RuntimeToolRegistry()])

    message = _violates(contracts.check_tool_closure, broken)
    assert "calculate_tip: shown to the model but no executor ran it" in message
    contracts.check_tool_closure(fixed)


# -- duplicate tool names -------------------------------------------------------------------


def test_unique_tool_names() -> None:
    message = _violates(contracts.check_unique_tool_names, [lookup, calculate_tip, lookup])
    assert "'lookup' appears 2 times" in message
    contracts.check_unique_tool_names([lookup, calculate_tip, {"name": "web_search"}])


# -- request state on the middleware instance -----------------------------------------------


class InstanceStateRouter(AgentMiddleware):
    def before_agent(self, state: Any, runtime: Any) -> None:
        self.role = getattr(runtime.context, "role", "guest")

    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        allowed = visible_business_tools(self.role)
        tools = [t for t in request.tools if t.name not in BUSINESS_TOOL_NAMES or t.name in allowed]
        return handler(request.override(tools=tools))


class LocalStateRouter(AgentMiddleware):
    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        role = getattr(request.runtime.context if request.runtime else None, "role", "guest")
        allowed = visible_business_tools(role)
        tools = [t for t in request.tools if t.name not in BUSINESS_TOOL_NAMES or t.name in allowed]
        return handler(request.override(tools=tools))


def test_isolation() -> None:
    contexts = [AgentContext("guest"), AgentContext("admin"), AgentContext("analyst")]

    def unsafe(model: Any) -> Any:
        return create_agent(model, list(BUSINESS_TOOLS), middleware=[InstanceStateRouter()])

    def safe(model: Any) -> Any:
        return create_agent(model, list(BUSINESS_TOOLS), middleware=[LocalStateRouter()])

    message = _violates(contracts.check_isolation, unsafe, contexts)
    assert "threads: all 3 runs held at boundary" in message
    assert "saw another run's request" in message
    contracts.check_isolation(safe, contexts)


def test_isolation_under_asyncio_alone() -> None:
    def unsafe(model: Any) -> Any:
        return create_agent(model, list(BUSINESS_TOOLS), middleware=[InstanceStateRouter()])

    message = _violates(
        contracts.check_isolation,
        unsafe,
        [AgentContext("guest"), AgentContext("admin")],
        modes=["asyncio"],
    )
    assert "asyncio: all 2 runs held" in message


class StallsOnce(AgentMiddleware):
    """Before the model, the admin's third run waits until another run gave up waiting."""

    def __init__(self, released: threading.Event) -> None:
        self.released, self.admin_runs = released, 0

    def before_model(self, state: Any, runtime: Any) -> None:
        if runtime.context.role == "admin":
            self.admin_runs += 1
            if self.admin_runs == 3:
                self.released.wait(timeout=60)


def test_isolation_runs_not_held_together_are_not_a_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    from hookproof.contracts import _isolation

    released, wait = threading.Event(), _isolation._HoldAt._wait

    def wait_then_release(hold: Any) -> None:
        wait(hold)
        if hold.broken:
            released.set()

    monkeypatch.setattr(_isolation, "_WAIT_SECONDS", 0.2)
    monkeypatch.setattr(_isolation._HoldAt, "_wait", wait_then_release)
    stalling = StallsOnce(released)

    def build(model: Any) -> Any:
        return create_agent(model, list(BUSINESS_TOOLS), middleware=[stalling])

    contexts = [AgentContext("guest"), AgentContext("admin")]
    with pytest.raises(contracts.UntestedError, match="could not be held together at boundary 2"):
        contracts.check_isolation(build, contexts, modes=["threads"])
    assert released.is_set()


# -- unbounded or indiscriminate retry ------------------------------------------------------


class RetryForever(AgentMiddleware):
    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        while True:
            try:
                return handler(request)
            except Exception:  # noqa: BLE001 - the bug under test
                continue


class RetryEverythingThrice(RetriesThrice, AgentMiddleware):
    pass


class BoundedRetry(RetriesThrice, AgentMiddleware):
    retry_on = (ConnectionError, TimeoutError)


def test_bounded_retry() -> None:
    assert "(no bound)" in _violates(contracts.check_bounded_retry, RetryForever())
    message = _violates(contracts.check_bounded_retry, RetryEverythingThrice())
    assert "a PermissionError (not retryable) was tried 3 times" in message
    contracts.check_bounded_retry(BoundedRetry())


# -- except Exception: return "failed" ------------------------------------------------------


class SwallowEverything(AgentMiddleware):
    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        try:
            return handler(request)
        except Exception:  # noqa: BLE001 - the bug under test
            return ToolMessage(content="failed", tool_call_id=request.tool_call.id or "")


class TranslateKnownErrors(AgentMiddleware):
    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        try:
            return handler(request)
        except PermissionError as error:
            text = f"PermissionError: {error}"
            return ToolMessage(
                content=text, tool_call_id=request.tool_call.id or "", status="error"
            )


def test_tool_errors_surface() -> None:
    message = _violates(contracts.check_tool_errors_surface, SwallowEverything())
    assert "PermissionError became a success ToolMessage 'failed'" in message
    report = contracts.check_tool_errors_surface(TranslateKnownErrors())
    assert report.hooks_observed == ("TranslateKnownErrors.wrap_tool_call",)
    assert report.complete


def test_tool_errors_surface_without_wrap_tool_call_is_untested() -> None:
    with pytest.raises(contracts.UntestedError, match="nothing to check"):
        contracts.check_tool_errors_surface(OverrideFilter())
    report = contracts.check_tool_errors_surface(OverrideFilter(), allow_untested=True)
    assert not report.complete
    assert "has none of the hooks this check exercises (wrap_tool_call)" in report.untested[0]


# -- exclusion applied before a re-adding middleware ----------------------------------------


class Exclude(AgentMiddleware):
    def __init__(self, excluded: set[str]) -> None:
        self.excluded = excluded

    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        return handler(
            request.override(tools=[t for t in request.tools if t.name not in self.excluded])
        )

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        if request.tool_call.name in self.excluded:
            return ToolMessage(
                content="unavailable", tool_call_id=request.tool_call.id or "", status="error"
            )
        return handler(request)


class ReAdd(AgentMiddleware):
    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        return handler(request.override(tools=[*request.tools, lookup]))


def test_exclusion_holds() -> None:
    def exclusion_first(model: Any) -> Any:
        return create_agent(model, [lookup], middleware=[Exclude({"lookup"}), ReAdd()])

    def exclusion_last(model: Any) -> Any:
        return create_agent(model, [lookup], middleware=[ReAdd(), Exclude({"lookup"})])

    message = _violates(contracts.check_exclusion_holds, exclusion_first, {"lookup"})
    assert "was shown excluded tool(s) ['lookup']" in message
    contracts.check_exclusion_holds(exclusion_last, {"lookup"})


def test_exclusion_catches_execution_without_visibility() -> None:
    def hidden_but_runs(model: Any) -> Any:
        class HideOnly(AgentMiddleware):
            def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
                return handler(
                    request.override(tools=[t for t in request.tools if t.name != "lookup"])
                )

        return create_agent(model, [lookup], middleware=[HideOnly()])

    message = _violates(contracts.check_exclusion_holds, hidden_but_runs, ["lookup"])
    assert "excluded tool(s) ['lookup'] executed" in message


# -- hook order -----------------------------------------------------------------------------


def _trace(*events: tuple[Any, str, Any, str | None]) -> Trace:
    """A trace of (kind, hook, phase, middleware) events, numbered in order."""
    return Trace(tuple(TraceEvent(seq, *event) for seq, event in enumerate(events)))


def test_hook_order_catches_broken_nesting_and_reversed_after_hooks() -> None:
    crossed = _trace(
        ("layer", "wrap_model_call", "enter", "A"),
        ("layer", "wrap_model_call", "enter", "B"),
        ("layer", "wrap_model_call", "exit", "A"),
        ("layer", "wrap_model_call", "exit", "B"),
    )
    assert "closes B.wrap_model_call:enter: layers do not nest" in _violates(
        contracts.check_hook_order, crossed
    )
    same_order = _trace(
        ("hook", "before_model", "enter", "A"),
        ("hook", "before_model", "exit", "A"),
        ("hook", "before_model", "enter", "B"),
        ("hook", "before_model", "exit", "B"),
        ("hook", "after_model", "enter", "A"),
        ("hook", "after_model", "exit", "A"),
        ("hook", "after_model", "enter", "B"),
        ("hook", "after_model", "exit", "B"),
    )
    message = _violates(contracts.check_hook_order, same_order)
    assert (
        "after_model order ['A', 'B'] is not the reverse of before_model order ['A', 'B']"
        in message
    )


@given(stack=strategies.middleware_stacks(), tool_calls=st.integers(0, 2), use_async=st.booleans())
def test_hook_order_holds_for_any_probe_stack(
    stack: list[Any], tool_calls: int, use_async: bool
) -> None:
    import asyncio

    turns: list[Any] = [call("lookup", {"query": str(n)}) for n in range(tool_calls)] + ["done"]
    agent = create_agent(ScriptedModel(turns), [lookup], middleware=stack)
    request = {"messages": [("user", "hi")]}
    result = asyncio.run(agent.ainvoke(request)) if use_async else agent.invoke(request)
    if any(event.kind in ("hook", "layer") for event in result.trace):
        assert contracts.check_hook_order(result.trace).complete
    else:  # no middleware ran (none, or only tool wrappers and no tool call): nothing to order
        with pytest.raises(contracts.UntestedError, match="no hook or wrap layer"):
            contracts.check_hook_order(result.trace)


@given(tools=strategies.tool_sets(), data=st.data())
def test_scripts_respect_schemas_and_run(tools: list[Any], data: st.DataObject) -> None:
    from hookproof.tools import Tool

    executable = [Tool(schema=schema, func=lambda **kwargs: "ok") for schema in tools]
    script = data.draw(strategies.scripts(tools))
    result = create_agent(ScriptedModel(script), executable).invoke({"messages": [("user", "x")]})
    assert all(m.status == "success" for m in result.messages if isinstance(m, ToolMessage))
    assert result.text == "done"


def test_strategies_reject_non_dataclass_contexts() -> None:
    from hookproof.errors import UsageError

    with pytest.raises(UsageError, match="not one"):
        strategies.contexts(dict)


def test_async_only_middleware_is_checked_through_its_twin() -> None:
    class AsyncRebuild(AgentMiddleware):
        async def awrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
            return await handler(request.override(system_message=SystemMessage(content="new")))

    class AsyncRetryForever(AgentMiddleware):
        async def awrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
            while True:
                try:
                    return await handler(request)
                except Exception:  # noqa: BLE001 - the bug under test
                    continue

    class AsyncSwallow(AgentMiddleware):
        async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
            try:
                return await handler(request)
            except Exception:  # noqa: BLE001 - the bug under test
                return ToolMessage(content="failed", tool_call_id="x")

    assert "id 'system-1' became None" in _violates(
        contracts.check_metadata_preserved, AsyncRebuild()
    )
    assert "(no bound)" in _violates(contracts.check_bounded_retry, AsyncRetryForever())
    assert "success ToolMessage" in _violates(contracts.check_tool_errors_surface, AsyncSwallow())


def test_isolation_refuses_a_list_script() -> None:
    from hookproof.errors import UsageError

    with pytest.raises(UsageError, match="must be a function of the request"):
        contracts.check_isolation(lambda m: create_agent(m), ["a", "b"], script=["done"])


def test_example_args_follow_refs_choices_and_types() -> None:
    schema = {
        "type": "object",
        "$defs": {
            "Item": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
        },
        "properties": {
            "item": {"$ref": "#/$defs/Item"},
            "mode": {"enum": ["fast", "slow"]},
            "fixed": {"const": 3},
            "maybe": {"anyOf": [{"type": "null"}, {"type": "number"}]},
            "tags": {"type": ["null", "array"]},
            "flag": {"type": "boolean"},
            "optional": {"type": "string"},
        },
        "required": ["item", "mode", "fixed", "maybe", "tags", "flag"],
    }
    assert contracts.example_args(schema) == {
        "item": {"n": 1},
        "mode": "fast",
        "fixed": 3,
        "maybe": 1.0,
        "tags": [],
        "flag": True,
    }
