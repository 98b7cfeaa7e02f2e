"""The error table of spec section 5 (one test per row) and AfterAgent's cases."""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.eino import (
    DEFAULT_EINO_MAX_ITERATIONS,
    AgentEvent,
    BaseChatModelAgentMiddleware,
    ChatModelAgent,
    ExceedMaxIterationsError,
    HandlerError,
    InMemoryCheckpointer,
    ManualClock,
    ModelRetryConfig,
    RetryExhaustedError,
    RunContext,
    ToolCallError,
    ToolNotFoundError,
    interrupt,
    send_event,
)
from hookproof.errors import EinoError, UsageError
from hookproof.models import call
from hookproof.tools import tool
from tests.eino.helpers import (
    EveryHook,
    Flaky,
    Logger,
    StreamableOnly,
    agent_with,
    hooks_entered,
    scripted,
)


class Boom(EveryHook):
    """Raises from the one hook named ``where``."""

    def __init__(self, where: str) -> None:
        self.where = where

    def _at(self, hook: str) -> None:
        if hook == self.where:
            raise RuntimeError(f"boom in {hook}")


def test_before_agent_error_is_one_error_event_and_no_model_call() -> None:
    log: list[str] = []
    model = scripted("never")
    run = agent_with(model, handlers=[Logger("A", log), Boom("before_agent")]).run([("user", "x")])
    assert run.kinds() == ["error"]
    assert str(run.error) == (
        "ChatModelAgent getRunFunc error: handler[1] (Boom) BeforeAgent failed: "
        "boom in before_agent"
    )
    assert isinstance(run.error, HandlerError) and run.error.index == 1
    assert isinstance(run.error.__cause__, RuntimeError)
    assert model.requests == () and "A.after_agent" not in log


@pytest.mark.parametrize(
    "where", ["before_model_rewrite_state", "after_model_rewrite_state", "wrap_model"]
)
def test_model_node_hook_errors_end_the_run_at_the_chat_model_node(where: str) -> None:
    log: list[str] = []
    run = agent_with(scripted("answer"), handlers=[Logger("A", log), Boom(where)]).run(
        [("user", "x")]
    )
    assert run.events[-1].kind == "error"
    assert str(run.error) == f"boom in {where}"
    assert run.events[-1].node_path == "ChatModel"
    assert "A.after_agent" not in log


def test_a_wrap_model_error_is_inside_the_retry_loop() -> None:
    class FailsOnce(BaseChatModelAgentMiddleware):
        calls = 0

        def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
            FailsOnce.calls += 1
            if FailsOnce.calls == 1:
                raise TimeoutError("wrapper not ready")
            return model

    run = agent_with(
        scripted("answer"),
        handlers=[FailsOnce()],
        model_retry_config=ModelRetryConfig(max_retries=1),
        clock=ManualClock(),
    ).run([("user", "x")])
    assert run.error is None and run.text == "answer"


def test_model_error_and_exhausted_retries_are_error_events_without_after_agent() -> None:
    log: list[str] = []
    plain = ChatModelAgent(model=Flaky(failures=9), handlers=[Logger("A", log)])
    run = plain.run([("user", "x")])
    assert isinstance(run.error, ConnectionError) and run.events[-1].node_path == "ChatModel"
    retried = ChatModelAgent(
        model=Flaky(failures=9),
        handlers=[Logger("A", log)],
        model_retry_config=ModelRetryConfig(max_retries=2),
        clock=ManualClock(),
    ).run([("user", "x")])
    assert isinstance(retried.error, RetryExhaustedError)
    assert str(retried.error) == "exceeds max retries: last error: flaky down (3)"
    assert "A.after_agent" not in log


def test_max_iterations_fails_before_any_before_hook() -> None:
    log: list[str] = []
    model = scripted(*[call("search", {"q": str(i)}) for i in range(5)])
    run = agent_with(model, handlers=[Logger("A", log)], max_iterations=2).run([("user", "x")])
    assert isinstance(run.error, ExceedMaxIterationsError)
    assert str(run.error).startswith("exceeds max iterations")
    assert model.inner.calls == 2 and log.count("A.before_model") == 2
    assert hooks_entered(run.trace)[-1] == "eino:prepare.prepare"  # nothing after the check
    assert "A.after_agent" not in log


def test_max_iterations_zero_or_less_means_twenty() -> None:
    assert DEFAULT_EINO_MAX_ITERATIONS == 20
    assert ChatModelAgent(model=scripted("x"), max_iterations=0).max_iterations == 20
    assert ChatModelAgent(model=scripted("x"), max_iterations=-3).max_iterations == 20


@tool
def broken(q: str) -> str:
    """Always fails."""
    raise OSError("disk on fire")


def test_tool_error_in_invoke_mode() -> None:
    log: list[str] = []
    run = agent_with(
        scripted(call("broken", {"q": "x"}), "never"), tools=[broken], handlers=[Logger("A", log)]
    ).run([("user", "x")])
    assert isinstance(run.error, ToolCallError)
    assert str(run.error) == "failed to invoke tool[name:broken id:call_0]: disk on fire"
    assert run.events[-1].node_path == "ToolNode"
    assert run.kinds() == ["model_output", "error"]  # no tool event on error
    assert "A.after_agent" not in log


def test_tool_error_in_stream_mode() -> None:
    class BrokenStream(StreamableOnly):
        def streamable_run(self, ctx: Any, arguments: str) -> Any:
            yield "partial"
            raise OSError("stream cut")

    run = ChatModelAgent(
        model=scripted(call("kind_tool", {"q": "x"}), "never"), tools=[BrokenStream()]
    ).run([("user", "x")], enable_streaming=True)
    assert str(run.error) == "failed to stream tool call call_0: stream cut"


def test_unknown_tool_without_handler() -> None:
    run = agent_with(scripted(call("nope"), "never")).run([("user", "x")])
    assert isinstance(run.error, ToolNotFoundError)
    assert str(run.error).startswith("tool nope not found in toolsNode indexes")


def test_interrupt_saves_a_checkpoint_and_sends_an_interrupted_event() -> None:
    log: list[str] = []

    @tool
    def approve(q: str) -> str:
        """Needs a human."""
        answer = interrupt({"question": f"approve {q}?"})
        return f"approved: {answer}"

    checkpointer = InMemoryCheckpointer()
    agent = agent_with(
        scripted(call("approve", {"q": "refund"}), "done"),
        tools=[approve],
        handlers=[Logger("A", log)],
        checkpointer=checkpointer,
    )
    run = agent.run([("user", "x")], checkpoint_id="t1")
    assert run.kinds() == ["model_output", "interrupt"] and run.interrupted
    assert run.events[-1].action.interrupted.value == {"question": "approve refund?"}  # type: ignore[union-attr]
    assert checkpointer.threads() == ["t1"] and "A.after_agent" not in log
    resumed = agent.resume("t1", "yes")
    assert resumed.kinds() == ["tool_result", "model_output"]
    assert resumed.events[0].message.text == "approved: yes"  # type: ignore[union-attr]
    assert log.count("A.before_agent") == 2  # before_agent runs again on resume
    assert log[-1] == "A.after_agent"  # a resume that finishes runs AfterAgent


def test_interrupt_without_checkpointer_is_an_error_event_that_says_what_to_do() -> None:
    @tool
    def ask(q: str) -> str:
        """Asks a human."""
        return str(interrupt("?"))

    run = agent_with(scripted(call("ask", {"q": "x"})), tools=[ask]).run([("user", "x")])
    assert "checkpointer" in str(run.error)


def test_empty_state_after_the_model_call() -> None:
    class Wipe(BaseChatModelAgentMiddleware):
        def after_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            return ctx, state.override(messages=())

    run = agent_with(scripted("x"), handlers=[Wipe()]).run([("user", "x")])
    assert isinstance(run.error, EinoError)
    assert str(run.error) == "no messages left in state after model call"


# -- AfterAgent ---------------------------------------------------------------------------


class Tracks(BaseChatModelAgentMiddleware):
    def __init__(self, name: str, log: list[Any], fail: bool = False) -> None:
        self.name, self.log, self.fail = name, log, fail

    def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
        return ctx.with_value(f"from_{self.name}", True), agent_ctx

    def after_agent(self, ctx: RunContext, state: Any) -> RunContext:
        self.log.append((self.name, dict(ctx.values), len(state.messages)))
        if self.fail:
            raise ValueError(f"{self.name} refuses")
        return ctx.with_value(f"after_{self.name}", True)


def test_after_agent_on_final_answer_in_order_with_context_chained() -> None:
    log: list[Any] = []
    run = agent_with(scripted("answer"), handlers=[Tracks("a", log), Tracks("b", log)]).run(
        [("user", "x")], RunContext({"caller": "test"})
    )
    assert run.error is None and run.text == "answer"
    assert log == [
        ("a", {"caller": "test", "from_a": True, "from_b": True}, 2),
        ("b", {"caller": "test", "from_a": True, "from_b": True, "after_a": True}, 2),
    ]


def test_after_agent_on_return_directly() -> None:
    log: list[Any] = []
    run = agent_with(
        scripted(call("search", {"q": "x"})),
        return_directly=["search"],
        handlers=[Tracks("a", log)],
    ).run([("user", "x")])
    assert run.error is None and [entry[0] for entry in log] == ["a"]
    assert run.output.text == "found x"  # type: ignore[union-attr]  # output unchanged


def test_after_agent_fails_fast_with_the_error_in_the_event_stream() -> None:
    log: list[Any] = []
    handlers = [Tracks("a", log, fail=True), Tracks("b", log)]
    run = agent_with(scripted("answer"), handlers=handlers).run([("user", "x")])
    assert [entry[0] for entry in log] == ["a"]  # b is skipped
    assert run.kinds() == ["model_output", "error"]
    assert str(run.error) == "handler[0] (Tracks) AfterAgent failed: a refuses"


def test_after_agent_on_the_no_tools_path() -> None:
    log: list[Any] = []
    model = scripted(call("search", {"q": "x"}))  # a call with no tools: the run just ends
    run = ChatModelAgent(model=model, handlers=[Tracks("a", log)]).run([("user", "x")])
    assert run.error is None and run.trace.tool_calls == [] and len(log) == 1


def test_after_agent_gets_a_snapshot_and_cannot_change_the_output() -> None:
    class Tamper(BaseChatModelAgentMiddleware):
        def after_agent(self, ctx: Any, state: Any) -> Any:
            with pytest.raises(AttributeError, match="cannot be changed in place"):
                state.messages = ()
            return ctx

    run = agent_with(scripted("answer"), handlers=[Tamper()]).run([("user", "x")])
    assert run.error is None and run.messages[-1].text == "answer"


# -- outside a run ------------------------------------------------------------------------


def test_send_event_works_from_before_agent_and_fails_outside_a_run() -> None:
    class Announce(BaseChatModelAgentMiddleware):
        def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
            send_event(ctx, AgentEvent(custom={"stage": "start"}))
            return ctx, agent_ctx

    run = agent_with(scripted("answer"), handlers=[Announce()]).run([("user", "x")])
    assert run.kinds() == ["custom", "model_output"]
    assert run.events[0].custom == {"stage": "start"} and run.events[0].agent_name
    with pytest.raises(UsageError, match="TypedSendEvent failed: must be called within a "):
        send_event(RunContext(), AgentEvent(custom=1))


def test_hook_return_values_are_checked() -> None:
    class Wrong(BaseChatModelAgentMiddleware):
        def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            return state

    run = agent_with(scripted("x"), handlers=[Wrong()]).run([("user", "x")])
    assert isinstance(run.error, UsageError)
    assert "returns a pair (ctx, ChatModelAgentState)" in str(run.error)


def test_misspelled_and_incomplete_handlers_are_refused_at_construction() -> None:
    class Typo(BaseChatModelAgentMiddleware):
        def wrap_tool_call(self, *args: Any) -> Any:  # the LangChain name
            return None

    with pytest.raises(UsageError, match="'wrap_tool_call', which is not a handler method"):
        ChatModelAgent(model=scripted("x"), handlers=[Typo()])

    class Partial:
        def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
            return ctx, agent_ctx

    with pytest.raises(UsageError, match="lacks after_agent"):
        ChatModelAgent(model=scripted("x"), handlers=[Partial()])


def test_a_built_agents_settings_cannot_be_reassigned() -> None:
    agent = ChatModelAgent(model=scripted("done"), max_iterations=3)

    with pytest.raises(UsageError, match=r"ChatModelAgent.max_iterations is fixed"):
        agent.max_iterations = 5

    assert agent.max_iterations == 3
