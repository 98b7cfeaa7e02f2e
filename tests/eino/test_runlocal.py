"""Run-local values: where they work, serialization, and survival across interrupt/resume."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from hookproof.eino import (
    BaseChatModelAgentMiddleware,
    ChatModelAgent,
    InMemoryCheckpointer,
    ModelRetryConfig,
    ModelWrapper,
    RunContext,
    RunContextError,
    SerializationError,
    delete_run_local_value,
    get_run_local_value,
    interrupt,
    register_name,
    set_run_local_value,
)
from hookproof.eino._serial import decode, encode
from hookproof.errors import InvalidInputError
from hookproof.models import call
from hookproof.tools import ToolRuntime, tool
from tests.eino.helpers import agent_with, scripted


@dataclass
class ToolStats:
    count: int
    name: str


register_name("tests.eino.ToolStats", ToolStats)


class Unregistered:
    def __init__(self) -> None:
        self.value = 1


class EveryPlace(BaseChatModelAgentMiddleware):
    """Sets a value in each place run-local values work, and reads them back at the end."""

    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        set_run_local_value(ctx, "before_model", len(state.messages))
        return ctx, state

    def after_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        set_run_local_value(ctx, "after_model", True)
        return ctx, state

    def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
        class Mark(ModelWrapper):
            def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
                set_run_local_value(ctx, "wrap_model", "seen")
                return self.inner.generate(ctx, messages, **options)

        return Mark(model)

    def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
        def wrapped(ctx: Any, arguments: str) -> str:
            set_run_local_value(ctx, "last_tool", ToolStats(count=1, name=tool_ctx.name))
            return str(endpoint(ctx, arguments))

        return wrapped

    def after_agent(self, ctx: Any, state: Any) -> Any:
        for key in ("before_model", "after_model", "wrap_model", "last_tool", "in_tool"):
            self.seen[key] = get_run_local_value(ctx, key)
        delete_run_local_value(ctx, "wrap_model")
        self.seen["deleted"] = get_run_local_value(ctx, "wrap_model")
        return ctx


@tool
def counting(q: str, runtime: ToolRuntime) -> str:
    """A tool that writes a run-local value through the ctx it is given."""
    set_run_local_value(runtime.context, "in_tool", q)
    return "counted"


def test_run_local_values_work_in_every_hook_wrapper_and_tool() -> None:
    handler = EveryPlace()
    model = scripted(call("counting", {"q": "x"}), "done")
    run = agent_with(model, tools=[counting], handlers=[handler]).run([("user", "hi")])
    assert run.error is None
    assert handler.seen == {
        "before_model": (3, True),  # the last write wins: 3 messages at the 2nd model call
        "after_model": (True, True),
        "wrap_model": ("seen", True),
        "last_tool": (ToolStats(count=1, name="counting"), True),
        "in_tool": ("x", True),
        "deleted": (None, False),
    }


def test_run_local_values_are_fresh_per_run() -> None:
    seen: list[Any] = []

    class Count(BaseChatModelAgentMiddleware):
        def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            value, _found = get_run_local_value(ctx, "n")
            seen.append(value)
            set_run_local_value(ctx, "n", (value or 0) + 1)
            return ctx, state

    agent = agent_with(scripted("a", "b"), handlers=[Count()])
    agent.run([("user", "1")])
    agent.run([("user", "2")])
    assert seen == [None, None]


def test_run_local_values_are_unavailable_in_before_agent() -> None:
    class Early(BaseChatModelAgentMiddleware):
        def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
            set_run_local_value(ctx, "k", 1)
            return ctx, agent_ctx

    run = agent_with(scripted("x"), handlers=[Early()]).run([("user", "x")])
    cause = run.error.__cause__  # type: ignore[union-attr]
    assert isinstance(cause, RunContextError)
    assert "must be called within a ChatModelAgent Run() or Resume() execution context" in str(
        cause
    )
    assert "before_agent" in str(cause)


@pytest.mark.parametrize(
    ("function", "eino_name", "args"),
    [
        (set_run_local_value, "SetRunLocalValue", ("k", 1)),
        (get_run_local_value, "GetRunLocalValue", ("k",)),
        (delete_run_local_value, "DeleteRunLocalValue", ("k",)),
    ],
)
def test_run_local_functions_outside_a_run(
    function: Any, eino_name: str, args: tuple[Any, ...]
) -> None:
    with pytest.raises(RunContextError) as raised:
        function(RunContext(), *args)
    assert str(raised.value).startswith(
        f"{eino_name} failed: must be called within a ChatModelAgent Run() or Resume() "
        "execution context"
    )
    assert f"{function.__name__}()" in str(raised.value)  # the Python name, in the fix


def test_a_ctx_kept_after_its_run_is_outside_a_run() -> None:
    kept: list[RunContext] = []

    class Keep(BaseChatModelAgentMiddleware):
        def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            kept.append(ctx)
            return ctx, state

    agent_with(scripted("x"), handlers=[Keep()]).run([("user", "x")])
    with pytest.raises(RunContextError, match="belongs to no running agent"):
        get_run_local_value(kept[0], "k")


def test_an_unregistered_type_fails_at_set_time_with_the_fix() -> None:
    class Store(BaseChatModelAgentMiddleware):
        def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            set_run_local_value(ctx, "stats", Unregistered())
            return ctx, state

    run = agent_with(scripted("x"), handlers=[Store()]).run([("user", "x")])
    assert isinstance(run.error, SerializationError)
    assert "register_name('tests.eino.test_runlocal.Unregistered', Unregistered)" in str(run.error)


def test_register_name_refuses_a_name_taken_by_another_class() -> None:
    @dataclass
    class Other:
        n: int

    with pytest.raises(InvalidInputError, match="already registered"):
        register_name("tests.eino.ToolStats", Other)
    assert register_name("tests.eino.ToolStats", ToolStats) is ToolStats  # same pair: harmless


def test_the_serializer_round_trips_builtins_and_registered_types() -> None:
    value = {"a": [1, 2.5, None, True], 3: ("t", ToolStats(2, "x")), "nested": {"k": []}}
    assert decode(encode(value, what="v")) == value


@tool
def approve(q: str, runtime: ToolRuntime) -> str:
    """Asks a human before acting; remembers how many approvals it asked for."""
    asked, _ = get_run_local_value(runtime.context, "asked")
    set_run_local_value(runtime.context, "asked", (asked or 0) + 1)
    answer = interrupt(f"approve {q}?")
    return f"{answer} ({q})"


class RemembersAcrossResume(BaseChatModelAgentMiddleware):
    def __init__(self) -> None:
        self.after: list[Any] = []

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        if get_run_local_value(ctx, "stats")[1] is False:
            set_run_local_value(ctx, "stats", ToolStats(count=1, name="first call"))
        return ctx, state

    def after_agent(self, ctx: Any, state: Any) -> Any:
        self.after.append((get_run_local_value(ctx, "stats"), get_run_local_value(ctx, "asked")))
        return ctx


def test_run_local_values_survive_interrupt_and_resume() -> None:
    handler = RemembersAcrossResume()
    checkpointer = InMemoryCheckpointer()
    agent = ChatModelAgent(
        model=scripted(call("approve", {"q": "refund"}), "done"),
        tools=[approve],
        handlers=[handler],
        checkpointer=checkpointer,
    )
    first = agent.run([("user", "please refund")], checkpoint_id="thread-7")
    assert first.interrupted and handler.after == []
    saved = checkpointer.get("thread-7")
    assert saved is not None and "_eino_run_local" in saved.values
    resumed = agent.resume("thread-7", "approved")
    assert resumed.error is None and resumed.text == "done"
    # set before the interrupt, read after the resume: a registered type comes back equal;
    # the tool re-ran on resume and saw its own earlier count.
    assert handler.after == [((ToolStats(count=1, name="first call"), True), (2, True))]


def test_resume_of_an_unknown_or_finished_checkpoint_is_refused() -> None:
    agent = agent_with(scripted("x"), checkpointer=InMemoryCheckpointer())
    with pytest.raises(InvalidInputError, match=r"resume\('nope'\) found no interrupted run"):
        agent.resume("nope", "value")
    agent.run([("user", "hi")], checkpoint_id="done")
    with pytest.raises(InvalidInputError, match="a finished run cannot be resumed"):
        agent.resume("done", "value")


def test_run_local_values_work_in_the_legacy_hooks_and_model_context_has_the_configs() -> None:
    from hookproof.eino import AgentMiddleware, get_run_local_value, set_run_local_value

    seen: list[Any] = []

    def before(ctx: Any, state: Any) -> None:
        set_run_local_value(ctx, "legacy", 1)

    def after(ctx: Any, state: Any) -> None:
        seen.append(get_run_local_value(ctx, "legacy"))

    class Configs(BaseChatModelAgentMiddleware):
        def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
            seen.append((model_ctx.model_retry_config, [t.name for t in model_ctx.tools]))
            return model

    retry = ModelRetryConfig(max_retries=1)
    agent_with(
        scripted("ok"),
        middlewares=[AgentMiddleware(before_chat_model=before, after_chat_model=after)],
        handlers=[Configs()],
        model_retry_config=retry,
    ).run([("user", "x")])
    assert seen == [(retry, ["search"]), (1, True)]
