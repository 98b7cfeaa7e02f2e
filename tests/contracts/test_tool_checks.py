"""check_tools_preserved and check_allowed_calls_succeed: each catches its buggy twin and
passes its fixed twin on the reference runtime, the harness, LangChain, deepagents and the
Eino dialect."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

import pytest

from hookproof import contracts
from hookproof.contracts import ContractViolation, UntestedError
from hookproof.eino import BaseChatModelAgentMiddleware, ChatModelAgent
from hookproof.errors import InvalidInputError, UsageError
from hookproof.harness import BUILTIN_TOOL_NAMES, StateBackend, create_deep_agent
from hookproof.messages import ToolMessage
from hookproof.models import ScriptedModel
from hookproof.runtime import AgentMiddleware, create_agent, tool
from hookproof.targets import as_target

BUSINESS = frozenset({"lookup", "refund"})
ROLES = {"admin": BUSINESS, "support": frozenset({"lookup"})}
# the harness's file tools and task reject arguments their schema allows (relative paths,
# unknown subagent names): check_allowed_calls_succeed reports them unless skipped
HARNESS_SKIP = ("edit_file", "glob", "grep", "ls", "read_file", "task", "write_file")


@dataclass(frozen=True)
class Ctx:
    role: str = "support"
    customer: str | None = None


SUPPORT, ADMIN = Ctx("support", "c-1"), Ctx("admin")


def _visible(name: str, role: Any, *, allow_list: bool) -> bool:
    """The buggy router keeps an allow-list; the fixed one hides only business tools."""
    allowed = ROLES.get(role, frozenset())
    return name in allowed if allow_list else name not in BUSINESS or name in allowed


@tool
def lookup(customer_id: str) -> str:
    """Look a customer up in the CRM."""
    return f"customer {customer_id}: plan=pro"


@tool
def refund(order_id: str) -> str:
    """Refund an order."""
    return f"refunded {order_id}"


@tool
def search_docs(query: str) -> str:
    """Search the help center."""
    return f"docs for {query!r}"


class AllowListRouter(AgentMiddleware):
    """Buggy twin: keeps only the business tools the role may use, so every other tool (the
    harness's write_todos, ls, task, ...) vanishes and a call to one is refused."""

    allow_list = True

    def visible(self, name: str, context: Any) -> bool:
        return _visible(name, getattr(context, "role", None), allow_list=self.allow_list)

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        context = request.runtime.context
        shown = [t for t in request.tools if self.visible(t.name, context)]
        return handler(request.override(tools=shown))

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        call = request.tool_call
        if not self.visible(call.name, request.runtime.context):
            return ToolMessage(f"{call.name} is not allowed", tool_call_id=call.id, status="error")
        return handler(request)


class OwnedToolsRouter(AllowListRouter):
    """Fixed twin: hides and refuses only the business tools the role may not use."""

    allow_list = False


class CustomerFromContext(AgentMiddleware):
    """Buggy twin: rewrites customer_id to the context's customer, None for some contexts."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        call = request.tool_call
        if "customer_id" not in call.args:
            return handler(request)
        args = {**call.args, "customer_id": request.runtime.context.customer}
        return handler(request.override(tool_call=call.override(args=args)))


class PassesArguments(AgentMiddleware):
    """Fixed twin: passes the model's arguments through."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        return handler(request)


def _runtime(model: Any, middleware: list[Any]) -> Any:
    return create_agent(model, [lookup, refund, search_docs], middleware=middleware)


def _harness(model: Any, middleware: list[Any]) -> Any:
    return create_deep_agent(model, [lookup, refund], middleware=middleware)


def _found(error: pytest.ExceptionInfo[ContractViolation]) -> str:
    return str(error.value).split("Fix:")[0]


def _reported_tools(error: pytest.ExceptionInfo[ContractViolation]) -> list[str]:
    """The tools the Found list names (an argument value may contain any text)."""
    lines = _found(error).split("Found:")[1].splitlines()
    return [line.strip()[2:].split(":")[0] for line in lines if line.strip().startswith("- ")]


# -- check_tools_preserved -------------------------------------------------------------------


@pytest.mark.parametrize("context", [SUPPORT, ADMIN, Ctx("unknown")])
def test_preserved_catches_an_allow_list_router_on_the_harness(context: Ctx) -> None:
    with pytest.raises(ContractViolation) as error:
        contracts.check_tools_preserved(
            _harness, context, middleware=AllowListRouter(), owned=BUSINESS
        )
    found = _found(error)
    for name in ("write_todos", "ls", "task", "read_file"):
        assert f"{name}: shown to the model without the middleware, gone with it" in found
        assert f"{name}: a call to it was answered without running the tool" in found
    assert "Replay" in str(error.value) and "Trace excerpt:" in str(error.value)


@pytest.mark.parametrize("context", [SUPPORT, ADMIN, Ctx("unknown")])
def test_preserved_passes_a_router_that_removes_only_what_it_owns(context: Ctx) -> None:
    report = contracts.check_tools_preserved(
        _harness, context, middleware=OwnedToolsRouter(), owned=BUSINESS
    )
    assert report.complete and {"write_todos", "ls", "task"} <= set(report.tool_calls_executed)
    assert report.runs == 2 + 2 * 8  # two plain runs, a call to each harness tool, twice


def test_preserved_on_the_reference_runtime() -> None:
    with pytest.raises(ContractViolation, match="search_docs: shown to the model without"):
        contracts.check_tools_preserved(
            _runtime, SUPPORT, middleware=AllowListRouter(), owned=BUSINESS
        )
    contracts.check_tools_preserved(
        _runtime, SUPPORT, middleware=[OwnedToolsRouter()], owned=BUSINESS
    )


def test_owning_nothing_makes_hiding_a_business_tool_a_violation() -> None:
    with pytest.raises(ContractViolation) as error:
        contracts.check_tools_preserved(_runtime, SUPPORT, middleware=OwnedToolsRouter())
    assert "refund: shown to the model without the middleware, gone with it" in _found(error)
    assert "lookup" not in _found(error).split("Found:")[1]


class Redescribes(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        tools = [_redescribed(t) if t.name == "lookup" else t for t in request.tools]
        return handler(request.override(tools=tools))


def _redescribed(item: Any) -> Any:
    return dataclasses.replace(item, schema=item.schema.override(description="changed"))


def test_a_changed_schema_is_a_violation() -> None:
    with pytest.raises(ContractViolation, match="lookup: shown with a changed description"):
        contracts.check_tools_preserved(_runtime, SUPPORT, middleware=Redescribes())


def test_preserved_usage_errors_name_the_fix() -> None:
    with pytest.raises(UsageError, match=r"owned=\('refund',\)"):
        contracts.check_tools_preserved(
            _runtime, SUPPORT, middleware=PassesArguments(), owned="refund"
        )
    with pytest.raises(InvalidInputError, match="did you mean 'refund'"):
        contracts.check_tools_preserved(
            _runtime, SUPPORT, middleware=PassesArguments(), owned=["refnd"]
        )


class RefusesEverything(AgentMiddleware):
    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        call = request.tool_call
        return ToolMessage("rejected by the reviewer", tool_call_id=call.id, status="error")


def test_a_tool_the_baseline_cannot_run_is_untested_not_passed() -> None:
    def build(model: Any, middleware: list[Any]) -> Any:
        return create_agent(model, [lookup], middleware=[*middleware, RefusesEverything()])

    with pytest.raises(UntestedError, match="lookup: without the middleware too, the call did"):
        contracts.check_tools_preserved(build, SUPPORT, middleware=PassesArguments())
    report = contracts.check_tools_preserved(
        build, SUPPORT, middleware=PassesArguments(), allow_untested=True
    )
    assert not report.complete


# -- check_tools_preserved on the factory the user already has ---------------------------------


def _harness_with(router: AgentMiddleware) -> Any:
    """The app's own factory, build(model): its stack holds the router and a middleware of
    another concern."""
    return lambda model: create_deep_agent(
        model, [lookup, refund], middleware=[router, PassesArguments()]
    )


@pytest.mark.parametrize(
    "named", [AllowListRouter, "AllowListRouter", AllowListRouter()], ids=["class", "name", "like"]
)
def test_preserved_takes_the_middleware_out_of_the_harness_factory(named: Any) -> None:
    with pytest.raises(ContractViolation) as error:
        contracts.check_tools_preserved(
            _harness_with(AllowListRouter()), SUPPORT, middleware=named, owned=BUSINESS
        )
    assert "ls: shown to the model without the middleware, gone with it" in _found(error)
    assert "middleware=[AllowListRouter]" in _found(error)
    report = contracts.check_tools_preserved(
        _harness_with(OwnedToolsRouter()), SUPPORT, middleware="OwnedToolsRouter", owned=BUSINESS
    )
    assert report.complete and report.middleware_removed == ("OwnedToolsRouter",)
    assert {"ls", "write_todos", "task"} <= set(report.tool_calls_executed)


def test_preserved_takes_out_the_very_instance_the_factory_uses() -> None:
    used = OwnedToolsRouter()

    def build(model: Any) -> Any:
        return create_agent(
            model, [lookup, refund, search_docs], middleware=[used, PassesArguments()]
        )

    with pytest.raises(InvalidInputError, match="more than one middleware of a stack"):
        contracts.check_tools_preserved(build, SUPPORT, middleware=AgentMiddleware)
    report = contracts.check_tools_preserved(build, SUPPORT, middleware=used, owned=BUSINESS)
    assert report.complete and report.middleware_removed == ("OwnedToolsRouter",)
    assert "search_docs" in report.tool_calls_executed


def test_preserved_refuses_a_middleware_the_factory_does_not_build_and_lists_the_stacks() -> None:
    build = _harness_with(OwnedToolsRouter())
    with pytest.raises(InvalidInputError) as error:
        contracts.check_tools_preserved(build, SUPPORT, middleware="RoleRouter")
    assert "middleware 'RoleRouter' is in no stack the factory builds" in str(error.value)
    assert "OwnedToolsRouter, PassesArguments" in str(error.value)
    with pytest.raises(UsageError, match="takes one middleware to take out"):
        contracts.check_tools_preserved(build, SUPPORT, middleware=[OwnedToolsRouter()])


def test_preserved_reaches_a_constructor_kept_anywhere_but_not_an_agent_built_once() -> None:
    import functools

    make = functools.partial(create_agent, tools=[lookup, search_docs])
    kept = lambda model: make(model, middleware=[AllowListRouter()])  # noqa: E731
    with pytest.raises(ContractViolation, match="search_docs: shown to the model without"):
        contracts.check_tools_preserved(kept, SUPPORT, middleware=AllowListRouter)
    built_once = create_agent(ScriptedModel(["done"]), [lookup], middleware=[AllowListRouter()])
    with pytest.raises(UsageError, match="called none of"):
        contracts.check_tools_preserved(lambda model: built_once, SUPPORT, middleware="x")


def test_preserved_takes_the_handler_out_of_an_eino_factory() -> None:
    def build(router: EinoRouter) -> Any:
        return lambda model: ChatModelAgent(
            model=model, tools=[lookup, refund, search_docs], handlers=[router, EinoPasses()]
        )

    with pytest.raises(ContractViolation, match="search_docs: shown to the model without"):
        contracts.check_tools_preserved(
            build(EinoRouter(allow_list=True)), EINO_SUPPORT, middleware=EinoRouter, owned=BUSINESS
        )
    report = contracts.check_tools_preserved(
        build(EinoRouter(allow_list=False)), EINO_SUPPORT, middleware=EinoRouter, owned=BUSINESS
    )
    assert report.complete and report.middleware_removed == ("EinoRouter",)


# -- check_allowed_calls_succeed -------------------------------------------------------------


def _with(factory: Any, middleware: AgentMiddleware) -> Any:
    return lambda model: factory(model, [middleware])


@pytest.mark.parametrize("factory", [_runtime, _harness], ids=["runtime", "harness"])
def test_allowed_calls_catches_arguments_rewritten_from_a_missing_context(factory: Any) -> None:
    build = _with(factory, CustomerFromContext())
    skip = BUILTIN_TOOL_NAMES if factory is _harness else ()
    with pytest.raises(ContractViolation) as error:
        contracts.check_allowed_calls_succeed(build, Ctx("support", None), skip=skip)
    found = _found(error)
    assert "lookup: the tool answered with an error" in found and "customer_id" in found
    assert "minimal arguments {'customer_id': ''}" in found  # shrunk
    assert "refund" not in _reported_tools(error)
    contracts.check_allowed_calls_succeed(build, Ctx("support", "c-1"), skip=skip)


@pytest.mark.parametrize("factory", [_runtime, _harness], ids=["runtime", "harness"])
def test_allowed_calls_pass_arguments_passed_through(factory: Any) -> None:
    skip = HARNESS_SKIP if factory is _harness else ()  # a hand-written list still works
    report = contracts.check_allowed_calls_succeed(
        _with(factory, PassesArguments()), Ctx("support", None), skip=skip, max_examples=10
    )
    assert report.complete and {"lookup", "refund"} <= set(report.tool_calls_executed)
    assert set(skip).isdisjoint(report.tool_calls_attempted)
    assert report.tools_skipped == dict.fromkeys(skip, "named in skip=")


def test_the_harness_builtin_tool_names_are_the_tools_it_adds() -> None:
    def build(model: Any) -> Any:
        backend = StateBackend(execute=lambda command: f"ran {command}")
        return create_deep_agent(model, [lookup], backend=backend)

    assert set(as_target(build).tool_schemas()) == {"lookup", *BUILTIN_TOOL_NAMES}
    assert {"write_todos", "ls", "read_file", "execute", "task"} <= BUILTIN_TOOL_NAMES


def test_the_report_says_which_tools_were_skipped_and_why() -> None:
    report = contracts.check_allowed_calls_succeed(
        _with(_harness, OwnedToolsRouter()), SUPPORT, skip=BUILTIN_TOOL_NAMES, max_examples=5
    )
    hidden = f"not shown to the model for context={SUPPORT!r}, so not callable"
    assert report.tools_skipped == {
        **dict.fromkeys(BUILTIN_TOOL_NAMES - {"execute"}, "named in skip="),
        "refund": hidden,
    }
    assert report.complete and report.tool_calls_attempted == ("lookup",) * 5


def test_builtin_names_the_agent_lacks_may_be_skipped_but_a_typo_may_not() -> None:
    build = _with(_runtime, PassesArguments())
    report = contracts.check_allowed_calls_succeed(
        build, SUPPORT, skip=BUILTIN_TOOL_NAMES, max_examples=3
    )
    assert report.complete and report.tools_skipped == {}
    with pytest.raises(InvalidInputError, match="did you mean 'lookup'"):
        contracts.check_allowed_calls_succeed(build, SUPPORT, skip=[*BUILTIN_TOOL_NAMES, "lokup"])


def test_allowed_calls_catches_a_refusal_and_a_tool_that_rejects_its_own_schema() -> None:
    with pytest.raises(ContractViolation) as error:
        contracts.check_allowed_calls_succeed(_with(_runtime, RefusesEverything()), ADMIN)
    assert "lookup: the call was answered without running the tool: 'rejected" in _found(error)
    report = contracts.check_allowed_calls_succeed(_with(_runtime, AllowListRouter()), ADMIN)
    assert "search_docs" not in report.tool_calls_attempted  # hidden, so never called
    with pytest.raises(ContractViolation, match="read_file: the tool answered with an error"):
        contracts.check_allowed_calls_succeed(_with(_harness, PassesArguments()), SUPPORT)


def test_allowed_calls_usage_errors() -> None:
    build = _with(_runtime, PassesArguments())
    with pytest.raises(UsageError, match="max_examples"):
        contracts.check_allowed_calls_succeed(build, SUPPORT, max_examples=0)
    with pytest.raises(InvalidInputError, match="did you mean 'lookup'"):
        contracts.check_allowed_calls_succeed(build, SUPPORT, skip=["lokup"])


def test_allowed_calls_with_every_tool_skipped_is_untested() -> None:
    build = _with(_runtime, PassesArguments())
    with pytest.raises(UntestedError, match="every tool shown to the model is skipped"):
        contracts.check_allowed_calls_succeed(
            build, SUPPORT, skip=["lookup", "refund", "search_docs"]
        )


# -- LangChain create_agent and deepagents -----------------------------------------------------


@dataclass(frozen=True)
class LangChainTwins:
    """The same twins written as LangChain middleware, and the two factories."""

    allow_list: Any
    owned_only: Any
    customer_from_context: Any
    passes_arguments: Any
    create_agent: Any
    create_deep_agent: Any


def _langchain_twins() -> LangChainTwins:
    pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run this")
    from langchain.agents import create_agent as lc_create_agent
    from langchain.agents.middleware import AgentMiddleware as LCMiddleware
    from langchain_core.messages import ToolMessage as LCToolMessage
    from langchain_core.tools import tool as lc_tool

    class Router(LCMiddleware):  # type: ignore[type-arg]
        allow_list = True

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            role = getattr(request.runtime.context, "role", None)
            shown = [t for t in request.tools if _visible(t.name, role, allow_list=self.allow_list)]
            return handler(request.override(tools=shown))

        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            call, role = request.tool_call, getattr(request.runtime.context, "role", None)
            if not _visible(call["name"], role, allow_list=self.allow_list):
                return LCToolMessage("not allowed", tool_call_id=call["id"], status="error")
            return handler(request)

    class OwnedOnly(Router):
        allow_list = False

    class CustomerFromContext(LCMiddleware):  # type: ignore[type-arg]
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            call = request.tool_call
            if "customer_id" not in call["args"]:
                return handler(request)
            args = {**call["args"], "customer_id": request.runtime.context.customer}
            return handler(request.override(tool_call={**call, "args": args}))

    class Passes(LCMiddleware):  # type: ignore[type-arg]
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

    tools = [lc_tool(t.func) for t in (lookup, refund)]
    docs = lc_tool(search_docs.func)

    class HelpCenter(LCMiddleware):  # type: ignore[type-arg]
        """Another middleware that contributes a tool. (LangChain's TodoListMiddleware would
        do, but its write_todos fails under any checkpointer with langgraph 1.2.24: "Type is
        not msgpack serializable: Send", with or without the middleware under test.)"""

        tools = (docs,)

    def langchain(model: Any, middleware: list[Any]) -> Any:
        stack = [*middleware, HelpCenter()]
        return lc_create_agent(model, tools, middleware=stack, context_schema=Ctx)

    def deepagents(model: Any, middleware: list[Any]) -> Any:
        from deepagents import create_deep_agent as da_create_deep_agent

        return da_create_deep_agent(
            model=model, tools=tools, middleware=middleware, context_schema=Ctx
        )

    return LangChainTwins(
        Router(), OwnedOnly(), CustomerFromContext(), Passes(), langchain, deepagents
    )


def _on(framework: str) -> tuple[LangChainTwins, Any]:
    """The twins, and the factory that builds them on ``framework``."""
    twins = _langchain_twins()
    if framework == "deepagents":
        pytest.importorskip("deepagents", reason="install hookproof[deepagents] to run this")
    return twins, twins.create_agent if framework == "langchain" else twins.create_deep_agent


@pytest.mark.parametrize("framework", ["langchain", "deepagents"])
def test_preserved_on_langchain_and_deepagents(framework: str) -> None:
    twins, build = _on(framework)
    with pytest.raises(ContractViolation) as error:
        contracts.check_tools_preserved(build, SUPPORT, middleware=twins.allow_list, owned=BUSINESS)
    gone = "search_docs" if framework == "langchain" else "ls"
    assert f"{gone}: shown to the model without the middleware, gone with it" in _found(error)
    assert f"{gone}: a call to it was answered without running the tool" in _found(error)
    report = contracts.check_tools_preserved(
        build, SUPPORT, middleware=twins.owned_only, owned=BUSINESS
    )
    assert report.complete and gone in report.tool_calls_executed


@pytest.mark.parametrize("framework", ["langchain", "deepagents"])
def test_preserved_on_the_langchain_and_deepagents_factory_the_user_has(framework: str) -> None:
    twins, factory = _on(framework)
    gone = "search_docs" if framework == "langchain" else "ls"
    buggy = lambda model: factory(model, [twins.allow_list])  # noqa: E731
    with pytest.raises(ContractViolation) as error:
        contracts.check_tools_preserved(buggy, SUPPORT, middleware="Router", owned=BUSINESS)
    assert f"{gone}: shown to the model without the middleware, gone with it" in _found(error)
    fixed = lambda model: factory(model, [twins.owned_only])  # noqa: E731
    report = contracts.check_tools_preserved(
        fixed, SUPPORT, middleware=twins.owned_only, owned=BUSINESS
    )
    assert report.complete and gone in report.tool_calls_executed
    assert report.middleware_removed == ("OwnedOnly",)


@pytest.mark.parametrize("framework", ["langchain", "deepagents"])
def test_allowed_calls_on_langchain_and_deepagents(framework: str) -> None:
    twins, factory = _on(framework)
    skip = () if framework == "langchain" else _deepagents_builtin_tool_names()
    buggy = lambda model: factory(model, [twins.customer_from_context])  # noqa: E731
    with pytest.raises(ContractViolation) as error:
        contracts.check_allowed_calls_succeed(
            buggy, Ctx("support", None), skip=skip, max_examples=10
        )
    assert "lookup: the tool answered with an error" in _found(error)
    fixed = lambda model: factory(model, [twins.passes_arguments])  # noqa: E731
    report = contracts.check_allowed_calls_succeed(
        fixed, Ctx("support", None), skip=skip, max_examples=10
    )
    assert report.complete and "lookup" in report.tool_calls_executed
    assert report.tools_skipped == dict.fromkeys(skip, "named in skip=")


def _deepagents_builtin_tool_names() -> frozenset[str]:
    from hookproof.adapters.deepagents import BUILTIN_TOOL_NAMES as DEEPAGENTS_TOOL_NAMES

    return DEEPAGENTS_TOOL_NAMES


def test_the_deepagents_builtin_tool_names_match_the_installed_deepagents() -> None:
    _, factory = _on("deepagents")
    names = _deepagents_builtin_tool_names()
    registered = set(as_target(lambda model: factory(model, [])).tool_schemas())
    assert registered == {"lookup", "refund", *names}
    assert {"ls", "read_file", "write_file", "edit_file", "glob", "grep", "task"} <= names
    assert isinstance(names, frozenset) and names is _deepagents_builtin_tool_names()


# -- the Eino dialect (the context is the run's ctx: a dict of its values) ---------------------


class EinoRouter(BaseChatModelAgentMiddleware):
    """Buggy twin (allow_list) and fixed twin, as an Eino handler."""

    def __init__(self, *, allow_list: bool) -> None:
        self.allow_list = allow_list

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        role = ctx.value("role")
        shown = [
            i for i in state.tool_infos or () if _visible(i.name, role, allow_list=self.allow_list)
        ]
        return ctx, state.override(tool_infos=shown)

    def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
        if _visible(tool_ctx.name, ctx.value("role"), allow_list=self.allow_list):
            return endpoint
        return lambda ctx, arguments: f"{tool_ctx.name} is not allowed"


class EinoCustomerFromContext(BaseChatModelAgentMiddleware):
    """Buggy twin: rewrites customer_id to the ctx's customer, absent for some callers."""

    def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
        def rewritten(ctx: Any, arguments: str) -> Any:
            args = json.loads(arguments)
            if "customer_id" in args:
                args["customer_id"] = ctx.value("customer")
            return endpoint(ctx, json.dumps(args))

        return rewritten


class EinoPasses(BaseChatModelAgentMiddleware):
    def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
        return endpoint


def _eino(model: Any, middleware: list[Any]) -> ChatModelAgent:
    return ChatModelAgent(model=model, tools=[lookup, refund, search_docs], handlers=middleware)


EINO_SUPPORT = {"role": "support", "customer": None}


def test_preserved_on_eino() -> None:
    with pytest.raises(ContractViolation) as error:
        contracts.check_tools_preserved(
            _eino, EINO_SUPPORT, middleware=EinoRouter(allow_list=True), owned=BUSINESS
        )
    assert "search_docs: shown to the model without the middleware, gone with it" in _found(error)
    assert "search_docs: a call to it was answered without running the tool" in _found(error)
    report = contracts.check_tools_preserved(
        _eino, EINO_SUPPORT, middleware=EinoRouter(allow_list=False), owned=BUSINESS
    )
    assert report.complete and "search_docs" in report.tool_calls_executed


def test_allowed_calls_on_eino() -> None:
    with pytest.raises(ContractViolation) as error:
        contracts.check_allowed_calls_succeed(_with(_eino, EinoCustomerFromContext()), EINO_SUPPORT)
    reported = _reported_tools(error)
    assert "lookup" in reported and "refund" not in reported
    report = contracts.check_allowed_calls_succeed(_with(_eino, EinoPasses()), EINO_SUPPORT)
    assert report.complete and "lookup" in report.tool_calls_executed


def test_allowed_calls_report_the_same_minimal_failure_on_every_ci_run() -> None:
    from hypothesis import settings

    from hookproof.contracts.profiles import register_profiles

    register_profiles()
    previous = settings.get_current_profile_name()
    settings.load_profile("ci")
    try:
        messages = [_violation_text(_with(_runtime, CustomerFromContext())) for _ in range(2)]
    finally:
        settings.load_profile(previous)
    assert messages[0] == messages[1] and "minimal arguments" in messages[0]


def _violation_text(build: Any) -> str:
    with pytest.raises(ContractViolation) as error:
        contracts.check_allowed_calls_succeed(build, Ctx("support", None))
    return str(error.value)


@tool
def validate_name(name: str) -> str:
    """Say whether a name is one of the tools (its answer quotes the runtime's wording)."""
    return f"{name!r} is not a valid tool name here"


def test_a_tool_that_ran_and_quotes_the_unknown_tool_wording_is_not_called_unrun() -> None:
    # A success answer may hold any text (hypothesis once drew the todo "is not a valid
    # tool"): only an error answer says the runtime found no such tool.
    def build(model: Any) -> Any:
        return create_agent(model, [validate_name])

    report = contracts.check_allowed_calls_succeed(build, Ctx("support", "c-1"))
    assert "validate_name" in report.tool_calls_executed
