"""Contracts on real LangChain agents and middleware, through the adapter."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("langchain", reason="install hookproof[langchain] to test the adapter")

from hypothesis import given, settings
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import SystemMessage
from langchain_core.tools import tool

from hookproof import contracts
from hookproof.adapters.langchain import RecordingChatModel, ScriptedChatModel
from hookproof.contracts import ContractViolation
from hookproof.contracts.strategies import contexts
from tests.helpers import RetriesThrice


@dataclass(frozen=True)
class Ctx:
    role: str = "guest"


@tool
def public_search(query: str) -> str:
    """Search public data."""
    return f"public:{query}"


@tool
def internal_lookup(customer_id: str) -> str:
    """Look up a customer."""
    return f"internal:{customer_id}"


ROLES = {"guest": {"public_search"}, "admin": {"public_search", "internal_lookup"}}


class Router(AgentMiddleware):
    def __init__(self, admin_by_default: bool = False) -> None:
        self.admin_by_default = admin_by_default

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        runtime = request.runtime
        context = runtime.context if runtime is not None else None
        fallback = "admin" if self.admin_by_default else "guest"
        role = context.role if isinstance(context, Ctx) and context.role in ROLES else fallback
        tools = [t for t in request.tools if t.name in ROLES[role]]
        return handler(request.override(tools=tools))


def _build(router: Router) -> Any:
    def build(model: Any) -> Any:
        return create_agent(
            model, [public_search, internal_lookup], middleware=[router], context_schema=Ctx
        )

    return build


def _violates(check: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(ContractViolation) as caught:
        check(*args, **kwargs)
    return str(caught.value)


def test_fail_closed_on_create_agent() -> None:
    message = _violates(
        contracts.check_fail_closed,
        _build(Router(admin_by_default=True)),
        Ctx("root"),
        least_privileged_context=Ctx("guest"),
    )
    assert "tools beyond the least-privileged set: ['internal_lookup']" in message
    contracts.check_fail_closed(
        _build(Router()), Ctx("root"), least_privileged_context=Ctx("guest")
    )


@settings(max_examples=20)
@given(context=contexts(Ctx, trusted=False))
def test_fail_closed_property_on_create_agent(context: Any) -> None:
    contracts.check_fail_closed(_build(Router()), context, least_privileged_context=Ctx("guest"))


class MutatingFilter(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        request.tools.clear()
        return handler(request)


class ShallowOverride(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        changed = request.override(tools=[])
        changed.messages.append(changed.messages[0])  # shared with the original: a real leak
        return handler(changed)


def test_request_not_mutated_catches_in_place_changes_on_langchain_requests() -> None:
    message = _violates(contracts.check_request_not_mutated, MutatingFilter())
    assert "changed request.tools in place" in message
    assert "changed request.messages in place" in _violates(
        contracts.check_request_not_mutated, ShallowOverride()
    )
    contracts.check_request_not_mutated(Router())


class RebuildPrompt(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        text = request.system_message.text + "\nScope: c-1."
        return handler(request.override(system_message=SystemMessage(content=text)))


class AppendBlock(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        current = request.system_message
        updated = current.model_copy(
            update={"content": [*current.content, {"type": "text", "text": "Scope."}]}
        )
        return handler(request.override(system_message=updated))


def test_metadata_preserved_on_langchain_system_messages() -> None:
    message = _violates(contracts.check_metadata_preserved, RebuildPrompt())
    assert "id 'system-1' became None" in message
    contracts.check_metadata_preserved(AppendBlock())


class ReAdd(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request.override(tools=[*request.tools, internal_lookup]))


class Exclude(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(
            request.override(tools=[t for t in request.tools if t.name != "internal_lookup"])
        )

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        if request.tool_call["name"] == "internal_lookup":
            from langchain_core.messages import ToolMessage

            return ToolMessage(
                content="unavailable", tool_call_id=request.tool_call["id"], status="error"
            )
        return handler(request)


def test_exclusion_holds_on_create_agent() -> None:
    def first(model: Any) -> Any:
        return create_agent(
            model, [public_search, internal_lookup], middleware=[Exclude(), ReAdd()]
        )

    def last(model: Any) -> Any:
        return create_agent(
            model, [public_search, internal_lookup], middleware=[ReAdd(), Exclude()]
        )

    message = _violates(contracts.check_exclusion_holds, first, {"internal_lookup"})
    assert "was shown excluded tool(s) ['internal_lookup']" in message
    contracts.check_exclusion_holds(last, {"internal_lookup"})


def test_injected_model_used_and_tool_closure_on_create_agent() -> None:
    def careless(model: Any) -> Any:
        return create_agent(
            model or ScriptedChatModel(script=["x"], model_name="default"), [public_search]
        )

    def careful(model: Any) -> Any:
        return create_agent(model, [public_search])

    assert "`is not None`" in _violates(contracts.check_injected_model_used, careless)
    contracts.check_injected_model_used(careful)
    contracts.check_tool_closure(careful)


def test_recording_model_shows_final_schemas_after_a_filtering_middleware() -> None:
    model = RecordingChatModel(inner=ScriptedChatModel(script=["ok"]))
    _build(Router())(model).invoke({"messages": [("user", "hi")]}, context=Ctx("guest"))
    assert model.last.tool_names == ["public_search"]
    assert model.last.tool("public_search").parameters["required"] == ["query"]


class NodeA(AgentMiddleware):
    def before_model(self, state: Any, runtime: Any) -> None:
        return None

    def after_model(self, state: Any, runtime: Any) -> None:
        return None


class NodeB(NodeA):
    pass


def test_trace_of_a_langchain_run_shows_node_hooks_in_order() -> None:
    def build(model: Any) -> Any:
        return create_agent(model, [public_search], middleware=[NodeA(), NodeB()])

    run = contracts.as_target(build).run(script=["done"])
    assert run.trace is not None
    assert run.trace.labels("hook") == [
        "NodeA.before_model:enter",
        "NodeA.before_model:exit",
        "NodeB.before_model:enter",
        "NodeB.before_model:exit",
        "NodeB.after_model:enter",
        "NodeB.after_model:exit",
        "NodeA.after_model:enter",
        "NodeA.after_model:exit",
    ]
    contracts.check_hook_order(run.trace)


class InstanceStateRouter(AgentMiddleware):
    def before_agent(self, state: Any, runtime: Any) -> None:
        self.role = runtime.context.role if isinstance(runtime.context, Ctx) else "guest"

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        allowed = ROLES.get(self.role, ROLES["guest"])
        return handler(request.override(tools=[t for t in request.tools if t.name in allowed]))


def test_isolation_on_create_agent_is_forced_at_node_boundaries() -> None:
    def unsafe(model: Any) -> Any:
        return create_agent(
            model, [public_search, internal_lookup], middleware=[InstanceStateRouter()]
        )

    message = _violates(contracts.check_isolation, unsafe, [Ctx("guest"), Ctx("admin")])
    assert "saw another run's request" in message
    assert "threads: all 2 runs held at boundary" in message
    contracts.check_isolation(_build(Router()), [Ctx("guest"), Ctx("admin")])


class HideOnly(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(
            request.override(tools=[t for t in request.tools if t.name != "internal_lookup"])
        )


def test_exclusion_sees_an_excluded_tool_that_ran_on_create_agent() -> None:
    def build(model: Any) -> Any:
        return create_agent(model, [public_search, internal_lookup], middleware=[HideOnly()])

    message = _violates(contracts.check_exclusion_holds, build, {"internal_lookup"})
    assert "excluded tool(s) ['internal_lookup'] executed" in message


class Leaky(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        context = request.runtime.context if request.runtime else None
        self.user = getattr(context, "role", "guest")
        return handler(request)


class Reader(AgentMiddleware):
    def __init__(self, leaky: Leaky) -> None:
        super().__init__()
        self.leaky = leaky

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(
            request.override(system_message=SystemMessage(content=f"user {self.leaky.user}"))
        )


def test_isolation_holds_runs_between_wrap_layers_too() -> None:
    def build(model: Any) -> Any:
        leaky = Leaky()
        return create_agent(model, [public_search], middleware=[leaky, Reader(leaky)])

    message = _violates(contracts.check_isolation, build, [Ctx("guest"), Ctx("admin")])
    # Held before Reader's layer, the leak shows every time; on a loaded machine the threads
    # released at an earlier boundary can already race into it, so the boundary named is the
    # first one where it showed (the verdict is the same either way).
    held = re.search(r"held at boundary (\d+) \(before ([^)]+)\)", message)
    assert held is not None, message
    assert int(held.group(1)) <= 3, message  # 3 is "before Reader.wrap_model_call"
    assert "user admin" in message or "user guest" in message


def test_injected_model_counts_calls_even_when_the_run_fails_later() -> None:
    class Boom(AgentMiddleware):
        def after_model(self, state: Any, runtime: Any) -> None:
            raise RuntimeError("after the model")

    contracts.check_injected_model_used(lambda model: create_agent(model, middleware=[Boom()]))


class TranslatePermission(AgentMiddleware):
    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        from langchain_core.messages import ToolMessage

        try:
            return handler(request)
        except PermissionError as error:
            text = f"{type(error).__name__}: {error}"
            return ToolMessage(content=text, tool_call_id=request.tool_call["id"], status="error")


class SwallowAll(AgentMiddleware):
    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        from langchain_core.messages import ToolMessage

        try:
            return handler(request)
        except Exception:  # noqa: BLE001 - the bug under test
            return ToolMessage(content="failed", tool_call_id=request.tool_call["id"])


class RetryAll(RetriesThrice, AgentMiddleware):
    pass


def test_tool_error_and_retry_checks_on_langchain_middleware() -> None:
    contracts.check_tool_errors_surface(TranslatePermission())
    assert "success ToolMessage 'failed'" in _violates(
        contracts.check_tool_errors_surface, SwallowAll()
    )
    assert "(not retryable) was tried 3 times" in _violates(
        contracts.check_bounded_retry, RetryAll()
    )


def test_images_and_string_image_urls_convert() -> None:
    from langchain_core.messages import HumanMessage

    from hookproof.adapters.langchain import final_request

    message = HumanMessage(
        content=[
            {"type": "image", "source_type": "base64", "data": "AAAA", "mime_type": "image/png"},
            {"type": "image_url", "image_url": "https://x.invalid/a.png"},
        ]
    )
    blocks = final_request([message], {}, model="m").messages[0].content
    assert (blocks[0].base64, blocks[0].mime_type) == ("AAAA", "image/png")
    assert blocks[1].url == "https://x.invalid/a.png"


def test_a_broken_langchain_factory_reports_its_own_error() -> None:
    def broken(model: Any) -> Any:
        bound = model.bind(temperature=0)
        raise NameError(f"name 'PROMT' is not defined ({bound!r:.10})")

    with pytest.raises(NameError, match="PROMT"):
        contracts.check_tool_closure(broken)


class AsyncMutator(AgentMiddleware):
    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        request.tools.clear()
        return await handler(request)


class ToolArgsMutator(AgentMiddleware):
    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        request.tool_call["args"]["query"] = "pwned"
        return handler(request)


class AsyncFlatPrompt(AgentMiddleware):
    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        return await handler(request.override(system_message=SystemMessage(content="flat")))


def test_async_and_tool_hooks_of_langchain_middleware_are_checked() -> None:
    assert "wrap_model_call changed request.tools" in _violates(
        contracts.check_request_not_mutated, AsyncMutator()
    )
    assert "wrap_tool_call changed request.tool_call" in _violates(
        contracts.check_request_not_mutated, ToolArgsMutator()
    )
    assert "id 'system-1' became None" in _violates(
        contracts.check_metadata_preserved, AsyncFlatPrompt()
    )
