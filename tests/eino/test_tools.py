"""Tool calls in the Eino dialect: the wrapper-selection table, return-directly, tool
middlewares, unknown tools and the tool protocols."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof.eino import (
    BaseChatModelAgentMiddleware,
    ChatModelAgent,
    ModelWrapper,
    RunContext,
    ToolArgument,
    ToolMiddleware,
    ToolResult,
    select_endpoint,
)
from hookproof.errors import DuplicateToolError, EinoError, UsageError
from hookproof.messages import AssistantMessage, ToolMessage, text_message
from hookproof.models import call
from hookproof.runtime import tool
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
    tool_layer,
    wrapping_tools,
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
    # as on Eino (the differential, tests/go): an invokable endpoint's event is one message
    streamed = wrapper.endswith("streamable")
    assert event.is_streaming == streamed
    assert tuple(chunk.text for chunk in event.chunks) == (chunks if streamed else ())
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
    def rewrite(endpoint: Any, ctx: RunContext, arguments: str) -> str:
        return str(endpoint(ctx, '{"q": "changed"}')).upper()

    handler = wrapping_tools("wrap_invokable_tool_call", rewrite)
    run = agent_with(scripted(call("search", {"q": "x"}), "ok"), handlers=[handler]).run(
        [("user", "hi")]
    )
    assert run.events[1].message.text == "FOUND CHANGED"  # type: ignore[union-attr]


def test_enhanced_wrappers_receive_tool_arguments() -> None:
    seen: list[Any] = []

    def peek(endpoint: Any, ctx: RunContext, argument: ToolArgument) -> ToolResult:
        seen.append(argument)
        result: ToolResult = endpoint(ctx, argument)
        return ToolResult.of_text(result.text + "!")

    agent = ChatModelAgent(
        model=scripted(call("kind_tool", {"q": "x"}), "done"),
        tools=[EnhancedInvokableOnly()],
        handlers=[wrapping_tools("wrap_enhanced_invokable_tool_call", peek)],
    )
    run = agent.run([("user", "hi")])
    assert seen == [ToolArgument(text='{"q":"x"}')]  # compact, like a model's own JSON
    assert run.events[1].message.text == "enh!"  # type: ignore[union-attr]


def test_tool_middlewares_wrap_only_their_endpoint_kinds() -> None:
    log: list[str] = []

    def only(kind: str) -> Any:
        return tool_layer(
            lambda tool_input: log.append(f"{kind}:{tool_input.name}:{tool_input.call_id}")
        )

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


def test_calls_reusing_an_id_from_an_earlier_turn_still_run() -> None:
    model = scripted(call("search", {"q": "a"}, id="0"), call("lookup", {"q": "b"}, id="0"), "ok")
    run = agent_with(model, tools=[search, lookup]).run([("user", "x")])
    assert [event.data["tool"] for event in run.trace.tool_calls] == ["search", "lookup"]
    assert run.error is None


def test_calls_sharing_one_id_in_one_turn_and_the_next_each_run() -> None:
    same = [call("search", {"q": "a"}, id="0"), call("lookup", {"q": "b"}, id="0")]
    model = scripted(same, call("search", {"q": "c"}, id="0"), "ok")
    run = agent_with(model, tools=[search, lookup]).run([("user", "x")])
    answers = [(m.tool_call_id, m.text) for m in run.messages if m.role == "tool"]
    assert answers == [("0", "found a"), ("0", "customer b"), ("0", "found c")]


class NoIdModel:
    """A model written Eino's way that gives tool calls without ids."""

    hookproof_offline = True

    def __init__(self, *turns: Any) -> None:
        self.turns = list(turns)

    def generate(self, ctx: Any, messages: Any, **options: Any) -> AssistantMessage:
        from hookproof.messages import ToolCall, construct

        turn = self.turns.pop(0)
        if isinstance(turn, str):
            return text_message(AssistantMessage, turn)
        calls = tuple(ToolCall(name=name, args=args) for name, args in turn)
        return construct(AssistantMessage, content=(), tool_calls=calls)


def test_calls_without_ids_each_run_and_send_one_event_as_in_eino() -> None:
    # Eino holds the event of every call whose id is the return-directly call's, "" when
    # there is none: calls without ids are all held, and the last one's event is sent
    model = NoIdModel([("search", {"q": "a"}), ("search", {"q": "b"})], "done")
    run = agent_with(model).run([("user", "x")])
    assert [m.text for m in run.messages if m.role == "tool"] == ["found a", "found b"]
    assert [e.describe() for e in run][1:] == [
        "tool_result search: 'found b'",
        "model_output: 'done'",
    ]


def test_a_return_directly_call_without_an_id_does_not_end_the_run_as_in_eino() -> None:
    direct = NoIdModel([("search", {"q": "a"}), ("lookup", {"q": "b"})], "answered")
    run = agent_with(direct, tools=[search, lookup], return_directly=["lookup"]).run(
        [("user", "x")]
    )
    assert run.error is None and run.text == "answered"
    assert run.kinds() == ["model_output", "tool_result", "model_output"]


def test_a_function_tool_can_take_the_run_ctx() -> None:
    from hookproof.eino import AgentEvent, send_event
    from hookproof.tools import tool

    @tool
    def progress(step: int, ctx: RunContext) -> str:
        """Reports progress."""
        send_event(ctx, AgentEvent(custom={"step": step, "tenant": ctx.value("tenant")}))
        return "ok"

    assert list(progress.parameters["properties"]) == ["step"]  # ctx is not in the schema
    run = agent_with(scripted(call("progress", {"step": 2}), "done"), tools=[progress]).run(
        [("user", "x")], {"tenant": "acme"}
    )
    assert run.events[1].custom == {"step": 2, "tenant": "acme"}


def test_tool_arguments_handler_rewrites_arguments_before_every_layer() -> None:
    seen: list[str] = []

    def peek(endpoint: Any, ctx: RunContext, arguments: str) -> Any:
        seen.append(arguments)
        return endpoint(ctx, arguments)

    agent = agent_with(
        scripted(call("search", {"query": "x"}), "ok"),
        handlers=[wrapping_tools("wrap_invokable_tool_call", peek)],
        tool_arguments_handler=lambda ctx, name, args: args.replace('"query"', '"q"'),
    )
    run = agent.run([("user", "x")])
    assert seen == ['{"q":"x"}'] and run.messages[2].text == "found x"


def test_tool_infos_set_to_none_are_refilled_at_the_next_model_call() -> None:
    class Clears(BaseChatModelAgentMiddleware):
        def after_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            return ctx, state.override(tool_infos=None)

    model = scripted(call("search", {"q": "x"}), "ok")
    agent_with(model, handlers=[Clears()]).run([("user", "x")])
    assert [request.tool_names for request in model.requests] == [["search"], ["search"]]


class Forgetful(BaseChatModelAgentMiddleware):
    """wrap_model returns a wrapper that calls the inner model without its options."""

    def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
        class Drop(ModelWrapper):
            def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
                return self.inner.generate(ctx, messages)  # options left out

            def stream(self, ctx: Any, messages: Any, **options: Any) -> Any:
                return self.inner.stream(ctx, messages)

        return Drop(model)


@pytest.mark.parametrize("streaming", [False, True])
def test_a_wrapper_that_omits_options_leaves_the_model_without_tools(streaming: bool) -> None:
    # Eino's tools reach the model only as an option (WithTools): a wrapper that does not
    # pass the options on drops them, and the model is shown no tool
    model = scripted("ok")
    run = agent_with(model, handlers=[Forgetful()]).run([("user", "x")], enable_streaming=streaming)
    assert run.error is None and model.last.tool_names == []


def test_a_wrapper_that_passes_options_on_keeps_the_tools() -> None:
    model, log = scripted("ok"), []
    agent_with(model, handlers=[Logger("w", log)]).run([("user", "x")])
    assert "w.generate>" in log and model.last.tool_names == ["search"]


class CrossWired(BaseChatModelAgentMiddleware):
    """wrap_model returns a wrapper whose generate calls the inner stream and whose stream
    calls the inner generate."""

    def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
        class Cross(ModelWrapper):
            def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
                return next(iter(self.inner.stream(ctx, messages, **options)))

            def stream(self, ctx: Any, messages: Any, **options: Any) -> Any:
                return iter([self.inner.generate(ctx, messages, **options)])

        return Cross(model)


@pytest.mark.parametrize(
    ("streaming", "missing"),
    [(True, "generate endpoint not set"), (False, "stream endpoint not set")],
)
def test_a_wrapper_calling_the_other_modes_endpoint_fails_as_in_eino(
    streaming: bool, missing: str
) -> None:
    # Eino hands wrap_model a model with only the endpoint of the run's mode
    model = scripted("ok")
    run = agent_with(model, handlers=[CrossWired()]).run(
        [("user", "x")], enable_streaming=streaming
    )
    assert isinstance(run.error, EinoError) and str(run.error).startswith(missing)
    assert "CrossWired.wrap_model" in str(run.error) and not model.requests


_JSON_LEAVES = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
_JSON_VALUES = st.recursive(
    _JSON_LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(args=st.dictionaries(st.text(), _JSON_VALUES, max_size=4))
def test_a_tool_wrapper_sees_the_call_arguments_as_compact_json(args: dict[str, Any]) -> None:
    seen: list[str] = []

    def peek(endpoint: Any, ctx: RunContext, arguments: str) -> Any:
        seen.append(arguments)
        return "ok"

    agent = agent_with(
        scripted(call("search", args), "done"),
        handlers=[wrapping_tools("wrap_invokable_tool_call", peek)],
    )
    agent.run([("user", "x")])
    assert seen == [json.dumps(args, ensure_ascii=False, separators=(",", ":"))]


@pytest.mark.parametrize(
    ("rewritten", "answer"),
    [
        (' {"q": "x"}\n', "found x"),  # whitespace around the JSON is JSON's
        ('{"q":"x"} {}', "Extra data: line 1 column 11 (char 10)"),
        ('{"q":', "Expecting value: line 1 column 6 (char 5)"),
        ("", "found "),  # no arguments: the tool runs with none (and q's default)
    ],
)
def test_a_function_tool_reads_rewritten_arguments_as_json_loads_does(
    rewritten: str, answer: str
) -> None:
    @tool
    def search(q: str = "") -> str:
        """Search the docs."""
        return f"found {q}"

    agent = agent_with(
        scripted(call("search", {"q": "x"}), "done"),
        tools=[search],
        tool_arguments_handler=lambda ctx, name, args: rewritten,
    )
    run = agent.run([("user", "x")])
    if answer.startswith("found"):
        assert run.error is None and run.messages[2].text == answer
    else:
        assert answer in str(run.error)


def test_each_hook_is_shown_the_tools_of_its_own_step() -> None:
    # model_ctx.tools comes from the state in the rewrite hooks and from the options the
    # outer wrapper passed in wrap_model: each sees its own, whatever the one before saw
    seen: list[tuple[str, list[str]]] = []

    def names(model_ctx: Any) -> list[str]:
        return [info.name for info in model_ctx.tools]

    class Hide(BaseChatModelAgentMiddleware):
        def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            seen.append(("before", names(model_ctx)))
            return ctx, state.override(tool_infos=None)

    class ShowAgain(BaseChatModelAgentMiddleware):  # passes a list of its own to the inner model
        def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
            class Again(ModelWrapper):
                def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
                    return self.inner.generate(ctx, messages, tools=[search.schema])

            return Again(model)

    class Peek(BaseChatModelAgentMiddleware):
        def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
            seen.append(("wrap", names(model_ctx)))
            return model

        def after_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
            seen.append(("after", names(model_ctx)))
            return ctx, state

    model = scripted(call("search", {"q": "x"}), "ok")
    run = agent_with(model, handlers=[Hide(), ShowAgain(), Peek()]).run([("user", "x")])
    assert run.error is None
    assert seen == [("before", ["search"]), ("wrap", ["search"]), ("after", [])] * 2


def test_arguments_json_cannot_encode_fail_the_run_with_jsons_own_error() -> None:
    agent = agent_with(scripted(call("search", {"q": {1, 2}}), "done"))
    run = agent.run([("user", "x")])
    assert isinstance(run.error, TypeError)
    assert str(run.error) == "Object of type set is not JSON serializable"
