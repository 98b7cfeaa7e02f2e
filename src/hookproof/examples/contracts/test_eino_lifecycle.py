"""Contracts of an agent in the Eino dialect (ChatModelAgentMiddleware handlers).

Each test states one promise of the lifecycle, on the example support agent
(hookproof.examples.eino_support): what the model is shown per role, fail-closed filtering,
refusal of hidden tools, onion order of handlers, AfterAgent only on success, run-local
values that survive an interrupt, immutable state.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof.eino import (
    BaseChatModelAgentMiddleware,
    ChatModelAgent,
    ModelWrapper,
    RunContext,
)
from hookproof.errors import ImmutableError
from hookproof.examples.eino_support import (
    ROLE_TOOLS,
    RoleToolFilter,
    ToolAudit,
    build_eino_support_agent,
)
from hookproof.models import RecordingModel, ScriptedModel, call


def _model(*turns: Any) -> RecordingModel:
    return RecordingModel(ScriptedModel(list(turns), name="support-model"))


def _as(role: str | None) -> RunContext:
    return RunContext() if role is None else RunContext({"role": role})


@pytest.mark.parametrize("role", sorted(ROLE_TOOLS))
def test_each_role_is_shown_exactly_its_tools(role: str) -> None:
    model = _model("Hello.")
    build_eino_support_agent(model).run([("user", "hi")], _as(role))
    assert model.last.tool_names == sorted(ROLE_TOOLS[role])


@given(role=st.one_of(st.none(), st.text(max_size=12).filter(lambda r: r not in ROLE_TOOLS)))
def test_an_unknown_or_missing_role_gets_the_guests_tools(role: str | None) -> None:
    model = _model("Hello.")
    build_eino_support_agent(model).run([("user", "hi")], _as(role))
    assert model.last.tool_names == sorted(ROLE_TOOLS["guest"])


def test_a_hidden_tool_called_anyway_is_refused() -> None:
    model = _model(call("internal_lookup", {"customer_id": "c-1"}), "Sorry.")
    run = build_eino_support_agent(model).run([("user", "who is c-1?")], _as("guest"))
    assert run.error is None
    assert run.events[1].message.text == "tool internal_lookup is not available to this caller"  # type: ignore[union-attr]


class Order(BaseChatModelAgentMiddleware):
    """Logs where it is, to show how handlers nest."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.name, self.log = name, log

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        self.log.append(f"before:{self.name}")
        return ctx, state

    def after_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        self.log.append(f"after:{self.name}")
        return ctx, state

    def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
        log, name = self.log, self.name

        class Logged(ModelWrapper):
            def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
                log.append(f"enter:{name}")
                result = self.inner.generate(ctx, messages, **options)
                log.append(f"exit:{name}")
                return result

        return Logged(model)


@given(count=st.integers(min_value=1, max_value=6))
def test_handlers_run_in_registration_order_and_wrap_like_an_onion(count: int) -> None:
    log: list[str] = []
    names = [f"h{i}" for i in range(count)]
    agent = ChatModelAgent(model=_model("ok"), handlers=[Order(name, log) for name in names])
    assert agent.run([("user", "hi")]).error is None
    assert log == (
        [f"before:{n}" for n in names]
        + [f"enter:{n}" for n in names]
        + [f"exit:{n}" for n in reversed(names)]
        + [f"after:{n}" for n in names]  # Eino: registration order (LangChain: reversed)
    )


class Finished(BaseChatModelAgentMiddleware):
    def __init__(self) -> None:
        self.runs = 0

    def after_agent(self, ctx: RunContext, state: Any) -> RunContext:
        self.runs += 1
        return ctx


def test_after_agent_runs_only_when_the_run_succeeds() -> None:
    answered, failed, looping = Finished(), Finished(), Finished()
    build_eino_support_agent(_model("Done."), handlers=[answered]).run([("user", "hi")])
    build_eino_support_agent(_model(RuntimeError("model down")), handlers=[failed]).run(
        [("user", "hi")]
    )
    loop = [call("public_search", {"query": str(i)}) for i in range(3)]
    ChatModelAgent(
        model=_model(*loop), tools=build_eino_support_agent(_model()).tools,
        handlers=[looping], max_iterations=2,
    ).run([("user", "hi")])  # fmt: skip
    assert (answered.runs, failed.runs, looping.runs) == (1, 0, 0)


def test_run_local_values_survive_an_interrupt_and_resume() -> None:
    model = _model(
        [call("internal_lookup", {"customer_id": "c-1"}), call("refund", {"order_id": "o-9"})],
        "Refunded.",
    )
    agent = build_eino_support_agent(model)
    paused = agent.run([("user", "refund o-9 for c-1")], _as("admin"), checkpoint_id="case-1")
    assert paused.interrupted
    assert paused.events[-1].action.interrupted.value == {"action": "refund", "order_id": "o-9"}  # type: ignore[union-attr]
    resumed = agent.resume("case-1", "approved", _as("admin"))
    assert resumed.error is None and resumed.text == "Refunded."
    # the lookup before the pause and the refund after it: the count crossed the resume
    assert resumed.events[-1].custom == {"tool_calls": 2}


def test_hooks_cannot_change_state_in_place() -> None:
    class Mutates(BaseChatModelAgentMiddleware):
        def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            state.tool_infos = ()
            return ctx, state

    run = ChatModelAgent(model=_model("x"), handlers=[Mutates()]).run([("user", "hi")])
    assert isinstance(run.error, ImmutableError)
    assert "override(tool_infos=...)" in str(run.error)


def test_the_filter_and_the_audit_are_the_default_handlers() -> None:
    agent = build_eino_support_agent(_model())
    assert [type(handler) for handler in agent.handlers] == [RoleToolFilter, ToolAudit]


_HOOKS = ("before", "after", "wrap_model", "wrap_tool")


def _configured(name: str, hooks: frozenset[str], log: list[str]) -> Any:
    """A handler overriding exactly ``hooks`` (the rest are the no-op defaults)."""
    methods: dict[str, Any] = {}
    if "before" in hooks:

        def before(self: Any, ctx: Any, state: Any, model_ctx: Any) -> Any:
            log.append(f"before:{name}")
            return ctx, state

        methods["before_model_rewrite_state"] = before
    if "after" in hooks:

        def after(self: Any, ctx: Any, state: Any, model_ctx: Any) -> Any:
            log.append(f"after:{name}")
            return ctx, state

        methods["after_model_rewrite_state"] = after
    if "wrap_model" in hooks:
        order = Order(name, log)

        def wrap_model(self: Any, ctx: Any, model: Any, model_ctx: Any) -> Any:
            return order.wrap_model(ctx, model, model_ctx)

        methods["wrap_model"] = wrap_model
    if "wrap_tool" in hooks:

        def wrap_tool(self: Any, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
            def logged(ctx: Any, arguments: str) -> Any:
                log.append(f"tool>{name}")
                result = endpoint(ctx, arguments)
                log.append(f"tool<{name}")
                return result

            return logged

        methods["wrap_invokable_tool_call"] = wrap_tool
    return type(f"Handler_{name}", (BaseChatModelAgentMiddleware,), methods)()


def _expected(stack: list[tuple[str, frozenset[str]]]) -> list[str]:
    def having(hook: str) -> list[str]:
        return [name for name, hooks in stack if hook in hooks]

    def model_call() -> list[str]:
        wrapped = having("wrap_model")
        return (
            [f"before:{n}" for n in having("before")]
            + [f"enter:{n}" for n in wrapped]
            + [f"exit:{n}" for n in reversed(wrapped)]
            + [f"after:{n}" for n in having("after")]
        )

    tools = having("wrap_tool")
    tool_call = [f"tool>{n}" for n in tools] + [f"tool<{n}" for n in reversed(tools)]
    return model_call() + tool_call + model_call()


@given(
    stack=st.lists(st.frozensets(st.sampled_from(_HOOKS)), min_size=1, max_size=5).map(
        lambda sets: [(f"h{i}", hooks) for i, hooks in enumerate(sets)]
    )
)
def test_any_handler_stack_runs_in_the_eino_order(stack: list[tuple[str, frozenset[str]]]) -> None:
    from hookproof.contracts import check_hook_order
    from hookproof.examples.eino_support import public_search

    log: list[str] = []
    agent = ChatModelAgent(
        model=_model(call("public_search", {"query": "x"}), "done"),
        tools=[public_search],
        handlers=[_configured(name, hooks, log) for name, hooks in stack],
    )
    run = agent.run([("user", "hi")])
    assert run.error is None
    assert log == _expected(stack)
    check_hook_order(run.trace)
