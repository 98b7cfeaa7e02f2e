"""Tool calls in the Eino dialect: the wrapper-selection table, return-directly, tool
middlewares, unknown tools and the tool protocols."""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.eino import (
    BaseChatModelAgentMiddleware,
    ChatModelAgent,
    RunContext,
    ToolArgument,
    ToolMiddleware,
    ToolOutput,
    ToolResult,
    select_endpoint,
)
from hookproof.errors import DuplicateToolError, UsageError
from hookproof.messages import ToolMessage
from hookproof.models import call
from tests.eino.helpers import (
    Both,
    EnhancedInvokableOnly,
    EnhancedStreamableOnly,
    InvokableOnly,
    Logger,
    StreamableOnly,
    agent_with,
    lookup,
    scripted,
    search,
)

SELECTION = [
    # tool class, invoke mode (wrapper, result), stream mode (wrapper, chunks)
    (InvokableOnly, "invokable", "inv", "invokable", ("inv",)),
    (StreamableOnly, "streamable", "stream", "streamable", ("str", "eam")),
    (Both, "invokable", "inv", "streamable", ("str", "eam")),
    (EnhancedInvokableOnly, "enhanced_invokable", "enh", "enhanced_invokable", ("enh",)),
    (
        EnhancedStreamableOnly,
        "enhanced_streamable",
        "enh-stream",
        "enhanced_streamable",
        ("enh-", "stream"),
    ),
]


def _kind_run(tool: Any, streaming: bool) -> tuple[list[str], Any]:
    log: list[str] = []
    agent = ChatModelAgent(
        model=scripted(call("kind_tool", {"q": "x"}), "done"),
        tools=[tool],
        handlers=[Logger("H", log)],
    )
    return log, agent.run([("user", "hi")], enable_streaming=streaming)


def _tool_wrappers(log: list[str]) -> list[str]:
    return [step for step in log if step.endswith("able>")]


@pytest.mark.parametrize(("cls", "wrapper", "text", "_s", "_c"), SELECTION)
def test_invoke_mode_selects_the_wrapper_of_the_table(
    cls: type, wrapper: str, text: str, _s: str, _c: Any
) -> None:
    log, run = _kind_run(cls(), streaming=False)
    assert run.error is None
    assert _tool_wrappers(log) == [f"H.{wrapper}>"]
    event = run.events[1]
    assert event.kind == "tool_result" and not event.is_streaming
    assert event.message.text == text  # type: ignore[union-attr]  # streams concatenated


@pytest.mark.parametrize(("cls", "_w", "text", "wrapper", "chunks"), SELECTION)
def test_stream_mode_selects_the_wrapper_of_the_table(
    cls: type, _w: str, text: str, wrapper: str, chunks: tuple[str, ...]
) -> None:
    log, run = _kind_run(cls(), streaming=True)
    assert run.error is None
    assert _tool_wrappers(log) == [f"H.{wrapper}>"]
    event = run.events[1]
    assert event.is_streaming
    assert tuple(chunk.text for chunk in event.chunks) == chunks  # invokable: one chunk
    assert event.message.text == "".join(chunks)  # type: ignore[union-attr]


def test_enhanced_wins_when_a_tool_implements_every_interface() -> None:
    class Everything(Both, EnhancedInvokableOnly, EnhancedStreamableOnly):
        pass

    assert select_endpoint(Everything(), streaming=False) == "enhanced_invokable"
    assert select_endpoint(Everything(), streaming=True) == "enhanced_streamable"


def test_a_wrapper_is_called_once_per_tool_call_and_its_error_fails_that_call() -> None:
    calls: list[str] = []

    class Counting(BaseChatModelAgentMiddleware):
        def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
            calls.append(tool_ctx.call_id)
            if tool_ctx.name == "lookup":
                raise PermissionError("lookup is closed")
            return endpoint

    model = scripted([call("search", {"q": "a"}), call("search", {"q": "b"})], call("lookup"))
    run = agent_with(model, tools=[search, lookup], handlers=[Counting()]).run([("user", "x")])
    assert calls == ["call_0", "call_1", "call_2"]
    assert str(run.error) == ("failed to invoke tool[name:lookup id:call_2]: lookup is closed")


def test_wrappers_can_change_arguments_and_results() -> None:
    class Rewrite(BaseChatModelAgentMiddleware):
        def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
            def wrapped(ctx: RunContext, arguments: str) -> str:
                return str(endpoint(ctx, '{"q": "changed"}')).upper()

            return wrapped

    run = agent_with(scripted(call("search", {"q": "x"}), "ok"), handlers=[Rewrite()]).run(
        [("user", "hi")]
    )
    assert run.events[1].message.text == "FOUND CHANGED"  # type: ignore[union-attr]


def test_enhanced_wrappers_receive_tool_arguments() -> None:
    seen: list[Any] = []

    class Peek(BaseChatModelAgentMiddleware):
        def wrap_enhanced_invokable_tool_call(self, ctx: Any, endpoint: Any, tc: Any) -> Any:
            def wrapped(ctx: RunContext, argument: ToolArgument) -> ToolResult:
                seen.append(argument)
                result: ToolResult = endpoint(ctx, argument)
                return ToolResult.of_text(result.text + "!")

            return wrapped

    agent = ChatModelAgent(
        model=scripted(call("kind_tool", {"q": "x"}), "done"),
        tools=[EnhancedInvokableOnly()],
        handlers=[Peek()],
    )
    run = agent.run([("user", "hi")])
    assert seen == [ToolArgument(text='{"q":"x"}')]  # compact, like a model's own JSON
    assert run.events[1].message.text == "enh!"  # type: ignore[union-attr]


def test_tool_middlewares_wrap_only_their_endpoint_kinds() -> None:
    log: list[str] = []

    def only(kind: str) -> Any:
        def factory(next_endpoint: Any) -> Any:
            def endpoint(ctx: Any, tool_input: Any) -> ToolOutput:
                log.append(f"{kind}:{tool_input.name}:{tool_input.call_id}")
                return next_endpoint(ctx, tool_input)  # type: ignore[no-any-return]

            return endpoint

        return factory

    middleware = ToolMiddleware(invokable=only("invokable"), streamable=only("streamable"))
    agent = ChatModelAgent(
        model=scripted([call("search", {"q": "x"}), call("kind_tool")], "done"),
        tools=[search, StreamableOnly()],
        tool_call_middlewares=[middleware],
    )
    assert agent.run([("user", "hi")]).error is None
    assert log == ["invokable:search:call_0", "streamable:kind_tool:call_1"]


# -- return directly ------------------------------------------------------------------


def test_return_directly_ends_the_run_with_that_tools_message_after_the_other_events() -> None:
    model = scripted([call("lookup", {"q": "a"}), call("search", {"q": "b"})], "never")
    run = agent_with(model, tools=[search, lookup], return_directly={"lookup": False}).run(
        [("user", "hi")]
    )  # presence of the key counts, not its flag
    assert run.error is None
    assert [event.tool_name for event in run.events[1:]] == ["search", "lookup"]
    assert isinstance(run.output, ToolMessage) and run.output.text == "customer a"
    assert [e.data["tool"] for e in run.trace.tool_calls] == ["lookup", "search"]  # both ran
    assert model.inner.calls == 1  # no model call after the return-directly tool


def test_return_directly_the_last_matching_call_wins() -> None:
    model = scripted([call("search", {"q": "first"}), call("search", {"q": "second"})], "no")
    run = agent_with(model, return_directly=["search"]).run([("user", "hi")])
    assert run.output.text == "found second"  # type: ignore[union-attr]
    assert [event.message.text for event in run.events[1:]] == ["found first", "found second"]  # type: ignore[union-attr]


def test_return_directly_set_in_before_agent_applies() -> None:
    class Direct(BaseChatModelAgentMiddleware):
        def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
            return ctx, agent_ctx.override(return_directly={"search": True})

    model = scripted(call("search", {"q": "x"}), "never")
    run = agent_with(model, handlers=[Direct()]).run([("user", "hi")])
    assert run.text == "found x" and model.inner.calls == 1


# -- unknown tools and tool checks ---------------------------------------------------------


def test_unknown_tools_handler_bypasses_every_layer_and_sends_no_event() -> None:
    log: list[str] = []
    agent = agent_with(
        scripted(call("nope", {"a": 1}), "done"),
        handlers=[Logger("H", log)],
        unknown_tools_handler=lambda ctx, name, arguments: f"no tool {name} ({arguments})",
    )
    run = agent.run([("user", "hi")])
    assert run.error is None
    assert run.kinds() == ["model_output", "model_output"]
    assert not [step for step in log if "invokable" in step]
    assert run.messages[-2].text == 'no tool nope ({"a":1})'


def test_tool_protocol_violations_are_named() -> None:
    with pytest.raises(UsageError, match=r"tools\[0\] is a str, which is not an Eino tool"):
        ChatModelAgent(model=scripted("x"), tools=["search"])
    with pytest.raises(DuplicateToolError, match="two tools named 'search'"):
        ChatModelAgent(model=scripted("x"), tools=[search, search])


def test_a_wrapper_returning_a_non_endpoint_is_a_usage_error_event() -> None:
    class Bad(BaseChatModelAgentMiddleware):
        def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
            return "not an endpoint"

    run = agent_with(scripted(call("search", {"q": "x"}), "ok"), handlers=[Bad()]).run(
        [("user", "hi")]
    )
    assert isinstance(run.error.__cause__, UsageError)  # type: ignore[union-attr]
    assert "returns an endpoint" in str(run.error)
