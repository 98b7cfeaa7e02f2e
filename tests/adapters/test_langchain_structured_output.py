"""``response_format`` on the reference engine against LangChain's ``create_agent``: each case
builds the same agent with one factory, runs it on LangChain and through
``on_reference_engine``, and compares the structured response, the messages (ids left out:
a documented difference), the requests the chat model received, and the errors."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain.agents.structured_output import (
    AutoStrategy,
    MultipleStructuredOutputsError,
    ProviderStrategy,
    StructuredOutputValidationError,
    ToolStrategy,
)
from langchain_core.messages import BaseMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphRecursionError
from pydantic import BaseModel
from typing_extensions import TypedDict

from hookproof.adapters.langchain import (
    RecordingChatModel,
    ScriptedChatModel,
    on_reference_engine,
)
from hookproof.errors import UsageError
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.runtime import create_agent
from tests.adapters.engines import add, comparable, run_on_both


class Weather(BaseModel):
    """Weather response."""

    temperature: float
    condition: str


class Location(BaseModel):
    city: str


@dataclass
class WeatherRecord:
    temperature: float
    condition: str


class WeatherDict(TypedDict):
    temperature: float
    condition: str


WEATHER_SCHEMA = {
    "title": "weather_schema",
    "type": "object",
    "properties": {"temperature": {"type": "number"}, "condition": {"type": "string"}},
    "required": ["temperature", "condition"],
}
SUNNY = {"temperature": 75.0, "condition": "sunny"}
QUESTION = {"messages": [HumanMessage("What's the weather?")]}
ROME = {"city": "Rome"}
ABSENT = "<absent>"


# -- running one factory on both engines ---------------------------------------------------------


@dataclass
class Outcome:
    messages: list[tuple[Any, ...]]
    structured: Any
    requests: list[Any]
    error: BaseException | None


def _plain(message: BaseMessage) -> tuple[Any, ...]:
    """A LangChain message as comparable values (ids left out)."""
    calls = [(c["name"], dict(c["args"]), c["id"]) for c in getattr(message, "tool_calls", [])]
    kind = {"human": "user", "ai": "assistant"}.get(message.type, message.type)
    extra = (getattr(message, "tool_call_id", None), getattr(message, "status", None))
    return (kind, message.text, calls, message.name if kind == "tool" else None, *extra)


def _outcome(result: Any, model: RecordingChatModel) -> Outcome:
    """A run's result (LangChain's state dict, on both engines) and the model's requests."""
    requests = [comparable(request) for request in model.requests]
    messages = [_plain(m) for m in result["messages"]]
    return Outcome(messages, result.get("structured_response", ABSENT), requests, None)


def _run(agent: Any, model: RecordingChatModel, given: Any, run: Callable[..., Any]) -> Outcome:
    try:
        return _outcome(run(agent, given), model)
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return Outcome([], ABSENT, [comparable(r) for r in model.requests], error)


def _invoke(agent: Any, given: Any) -> Any:
    return agent.invoke(given)


def _ainvoke(agent: Any, given: Any) -> Any:
    return asyncio.run(agent.ainvoke(given))


def on_both(
    build: Callable[[Any], Any],
    script: list[Any],
    *,
    given: Any = None,
    run: Callable[..., Any] = _invoke,
    **model_options: Any,
) -> tuple[Outcome, Outcome]:
    """The same factory and script on LangChain and on the reference engine."""
    given = QUESTION if given is None else given
    outcomes = []
    for factory in (build, on_reference_engine(build)):
        model = RecordingChatModel(ScriptedChatModel(list(script), **model_options))
        outcomes.append(_run(factory(model), model, given, run))
    return outcomes[0], outcomes[1]


def assert_same(langchain: Outcome, reference: Outcome) -> None:
    assert langchain.error is None, langchain.error
    assert reference.error is None, reference.error
    assert reference.structured == langchain.structured
    assert reference.messages == langchain.messages
    assert reference.requests == langchain.requests


def assert_same_error(langchain: Outcome, reference: Outcome, kind: type[Exception]) -> None:
    assert isinstance(langchain.error, kind), langchain.error
    assert isinstance(reference.error, kind), reference.error
    assert str(reference.error) == str(langchain.error)
    assert reference.requests == langchain.requests


def agent_with(response_format: Any, tools: list[Any] | None = None, **options: Any) -> Any:
    def build(model: Any) -> Any:
        return langchain_create_agent(
            model, [add] if tools is None else tools, response_format=response_format, **options
        )

    return build


# -- the schema kinds and strategies ------------------------------------------------------------


@pytest.mark.parametrize(
    ("response_format", "name", "expected"),
    [
        (Weather, "Weather", Weather(**SUNNY)),
        (WeatherRecord, "WeatherRecord", WeatherRecord(**SUNNY)),  # type: ignore[arg-type]
        (WeatherDict, "WeatherDict", SUNNY),
        (WEATHER_SCHEMA, "weather_schema", SUNNY),
        (ToolStrategy(Weather), "Weather", Weather(**SUNNY)),
        (ToolStrategy(WEATHER_SCHEMA), "weather_schema", SUNNY),
    ],
    ids=["pydantic", "dataclass", "typeddict", "json-schema", "tool-strategy", "tool-json"],
)
def test_an_answer_through_the_artificial_tool(
    response_format: Any, name: str, expected: Any
) -> None:
    script = [call("add", {"a": 1, "b": 2}), call(name, SUNNY)]
    langchain, reference = on_both(agent_with(response_format), script)
    assert_same(langchain, reference)
    assert reference.structured == expected
    assert reference.requests[0].tool_choice == "any"
    assert reference.requests[0].tool_names == sorted(["add", name])
    assert reference.messages[-1][1] == f"Returning structured response: {expected}"


@pytest.mark.parametrize(
    "response_format",
    [ProviderStrategy(Weather), ProviderStrategy(Weather, strict=True), Weather],
    ids=["provider", "strict", "auto-chooses-provider"],
)
def test_an_answer_in_the_models_own_text(response_format: Any) -> None:
    script = [call("add", {"a": 1, "b": 2}), json.dumps(SUNNY)]
    build = agent_with(response_format)
    langchain, reference = on_both(build, script, model_name="gpt-4o")
    assert_same(langchain, reference)
    assert reference.structured == Weather(**SUNNY)
    native = reference.requests[0].response_format
    assert native["type"] == "json_schema"
    assert native["json_schema"]["name"] == "Weather"
    assert [r.tool_names for r in reference.requests] == [["add"], ["add"]]


def test_a_tool_strategy_with_custom_tool_message_content() -> None:
    strategy = ToolStrategy(Weather, tool_message_content="Got it.")
    langchain, reference = on_both(agent_with(strategy), [call("Weather", SUNNY)])
    assert_same(langchain, reference)
    assert reference.messages[-1][1] == "Got it."


def test_a_union_answers_with_either_schema() -> None:
    strategy = ToolStrategy(Weather | Location)
    langchain, reference = on_both(agent_with(strategy), [call("Location", {"city": "Oslo"})])
    assert_same(langchain, reference)
    assert reference.structured == Location(city="Oslo")
    assert reference.requests[0].tool_names == ["Location", "Weather", "add"]


def test_a_plain_answer_ends_the_run_without_a_structured_response() -> None:
    langchain, reference = on_both(agent_with(Weather), ["no idea"])
    assert_same(langchain, reference)
    assert reference.structured is None  # written (cleared) by the model call, as LangChain


def test_without_tools_the_model_is_asked_until_it_answers() -> None:
    langchain, reference = on_both(agent_with(Weather, tools=[]), ["hmm", call("Weather", SUNNY)])
    assert_same(langchain, reference)
    assert len(reference.requests) == 2


def test_an_answer_beside_a_tool_call_ends_the_run_after_the_tool() -> None:
    script = [[call("Weather", SUNNY), call("add", {"a": 1, "b": 2})]]
    langchain, reference = on_both(agent_with(ToolStrategy(Weather)), script)
    assert_same(langchain, reference)
    assert len(reference.requests) == 1
    assert [m[0] for m in reference.messages] == ["user", "assistant", "tool", "tool"]


# -- retries and errors --------------------------------------------------------------------------


_BAD = {"temperature": "warm"}


@pytest.mark.parametrize(
    "handle_errors",
    [
        True,
        "Please send valid weather.",
        StructuredOutputValidationError,
        (ValueError, StructuredOutputValidationError),
        lambda error: f"custom: {type(error).__name__}",
    ],
    ids=["true", "text", "type", "tuple", "callable"],
)
def test_an_invalid_answer_is_retried(handle_errors: Any) -> None:
    strategy = ToolStrategy(Weather, handle_errors=handle_errors)
    script = [call("Weather", _BAD), call("Weather", SUNNY)]
    langchain, reference = on_both(agent_with(strategy, tools=[]), script)
    assert_same(langchain, reference)
    assert reference.structured == Weather(**SUNNY)
    assert len(reference.messages) == 5


@pytest.mark.parametrize(
    "handle_errors", [False, MultipleStructuredOutputsError], ids=["false", "other-type"]
)
def test_an_invalid_answer_not_handled_raises_langchains_error(handle_errors: Any) -> None:
    strategy = ToolStrategy(Weather, handle_errors=handle_errors)
    langchain, reference = on_both(agent_with(strategy), [call("Weather", _BAD)])
    assert_same_error(langchain, reference, StructuredOutputValidationError)
    assert "Weather" in str(reference.error)
    assert isinstance(reference.error, StructuredOutputValidationError)
    assert reference.error.ai_message.tool_calls[0]["name"] == "Weather"


def test_two_answers_in_one_message_are_retried() -> None:
    strategy = ToolStrategy(Weather | Location)
    script = [[call("Weather", SUNNY), call("Location", {"city": "Oslo"})], call("Weather", SUNNY)]
    langchain, reference = on_both(agent_with(strategy, tools=[]), script)
    assert_same(langchain, reference)
    assert len(reference.messages) == 6
    assert reference.messages[2][1].startswith("Error: Model incorrectly returned multiple")


def test_two_answers_not_handled_raise_langchains_error() -> None:
    strategy = ToolStrategy(Weather | Location, handle_errors=False)
    script = [[call("Weather", SUNNY), call("Location", {"city": "Oslo"})]]
    langchain, reference = on_both(agent_with(strategy), script)
    assert_same_error(langchain, reference, MultipleStructuredOutputsError)


def test_invalid_native_output_raises_langchains_error() -> None:
    build = agent_with(ProviderStrategy(Weather))
    langchain, reference = on_both(build, ["not json"], model_name="gpt-4o")
    assert_same_error(langchain, reference, StructuredOutputValidationError)


def test_a_tool_strategy_for_a_schema_not_declared_is_langchains_value_error() -> None:
    class Widen(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request.override(response_format=ToolStrategy(Location)))

    build = agent_with(ToolStrategy(Weather), middleware=[Widen()])
    langchain, reference = on_both(build, ["x"])
    assert_same_error(langchain, reference, ValueError)
    assert "wasn't declared" in str(reference.error)


# -- middleware and threads ----------------------------------------------------------------------


def test_middleware_narrowing_a_union_shows_only_that_tool() -> None:
    class Narrow(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request.override(response_format=ToolStrategy(Weather)))

    build = agent_with(ToolStrategy(Weather | Location), tools=[], middleware=[Narrow()])
    langchain, reference = on_both(build, [call("Weather", SUNNY)])
    assert_same(langchain, reference)
    assert reference.requests[0].tool_names == ["Weather"]


def test_middleware_sees_the_agents_format_as_langchain_gives_it() -> None:
    seen: list[Any] = []

    class Reader(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            seen.append(request.response_format)
            return handler(request)

    build = agent_with(Weather, middleware=[Reader()])
    langchain, reference = on_both(build, [call("Weather", SUNNY)])
    assert_same(langchain, reference)
    assert [type(item) for item in seen] == [AutoStrategy, AutoStrategy]
    assert seen[0].schema is seen[1].schema is Weather


def test_middleware_clearing_the_format_gets_a_plain_answer() -> None:
    class Clear(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request.override(response_format=None))

    build = agent_with(ToolStrategy(Weather), middleware=[Clear()])
    langchain, reference = on_both(build, ["plain"])
    assert_same(langchain, reference)
    assert reference.structured is None


def test_a_later_turn_does_not_keep_the_earlier_answer() -> None:
    def build(model: Any) -> Any:
        return langchain_create_agent(
            model, [], response_format=ToolStrategy(Location), checkpointer=InMemorySaver()
        )

    # The second turn's first answer is invalid: the run must not end on the first turn's.
    script = [call("Location", {"city": "Oslo"}), call("Location", {}), call("Location", ROME)]
    outcomes = []
    config = {"configurable": {"thread_id": "t"}}
    for factory in (build, on_reference_engine(build)):
        model = RecordingChatModel(ScriptedChatModel(script))
        agent = factory(model)
        first = agent.invoke(QUESTION, config)
        second = agent.invoke({"messages": [HumanMessage("again")]}, config)
        outcomes.append((_outcome(first, model), _outcome(second, model)))
    (lc_first, lc_second), (ref_first, ref_second) = outcomes
    assert ref_first.structured == lc_first.structured == Location(city="Oslo")
    assert ref_second.messages == lc_second.messages
    assert ref_second.structured == lc_second.structured == Location(**ROME)
    assert ref_second.requests == lc_second.requests


def test_a_model_that_never_answers_stops_at_the_recursion_limit() -> None:
    def limited(agent: Any, given: Any) -> Any:
        return agent.invoke(given, {"recursion_limit": 3})

    build = agent_with(ToolStrategy(Weather), tools=[])
    langchain, reference = on_both(build, ["hmm"] * 5, run=limited)
    assert isinstance(langchain.error, GraphRecursionError), langchain.error
    assert isinstance(reference.error, GraphRecursionError), reference.error
    assert str(reference.error).startswith("Recursion limit of 3 reached")
    assert len(reference.requests) == len(langchain.requests) == 3


def test_async_runs_answer_alike() -> None:
    script = [call("add", {"a": 1, "b": 2}), call("Weather", SUNNY)]
    langchain, reference = on_both(agent_with(Weather), script, run=_ainvoke)
    assert_same(langchain, reference)
    assert reference.structured == Weather(**SUNNY)


# -- hookproof's own create_agent ----------------------------------------------------------------


def test_the_runtime_takes_langchains_strategies_with_its_own_models() -> None:
    model = RecordingModel(ScriptedModel([call("Weather", SUNNY)]))
    agent = create_agent(model, response_format=ToolStrategy(Weather))
    result = agent.invoke({"messages": [("user", "weather?")]})
    assert result.state["structured_response"] == Weather(**SUNNY)
    [request] = result.final_requests
    assert request.tool_names == ["Weather"]
    assert request.tool_choice == "any"
    assert request.response_format is None
    assert request.tool("Weather").parameters["required"] == ["temperature", "condition"]


def test_the_runtimes_final_request_shows_the_native_format() -> None:
    model = RecordingModel(ScriptedModel([json.dumps(SUNNY)]))
    agent = create_agent(model, response_format=ProviderStrategy(WEATHER_SCHEMA))
    result = agent.invoke({"messages": [("user", "weather?")]})
    assert result.state["structured_response"] == SUNNY
    [request] = result.final_requests
    assert request.response_format == {
        "type": "json_schema",
        "json_schema": {"name": "weather_schema", "schema": WEATHER_SCHEMA},
    }


def test_a_bare_schema_with_a_model_no_bridge_knows_is_a_clear_error() -> None:
    with pytest.raises(UsageError, match="ToolStrategy"):
        create_agent(ScriptedModel(["x"]), response_format=Weather)


def test_an_agent_without_a_format_writes_no_structured_response() -> None:
    result = create_agent(ScriptedModel(["x"])).invoke({"messages": [("user", "hi")]})
    assert "structured_response" not in result.state


class Prompting(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request.override(system_prompt="Be brief."))


@pytest.mark.parametrize(
    ("middleware", "event"),
    [([], "registered by agent"), ([Prompting()], "added by agent")],
    ids=["no-layer", "a-changing-layer"],
)
def test_provenance_of_the_artificial_tool_as_langchains(middleware: Any, event: str) -> None:
    build = agent_with(ToolStrategy(Weather), middleware=middleware)
    langchain, reference = run_on_both(
        build, on_reference_engine(build), script=[call("Weather", SUNNY)]
    )
    [lc_request], [ref_request] = langchain.final_requests, reference.final_requests
    assert lc_request.provenance is not None and ref_request.provenance is not None
    assert ref_request.provenance.describe() == lc_request.provenance.describe()
    assert f"tool Weather: {event}" in ref_request.provenance.describe().splitlines()


def test_an_anonymous_json_schema_gets_the_same_name_on_every_build() -> None:
    anonymous = {"type": "object", "properties": {"result": {"type": "string"}}}

    def answer(request: Any) -> Any:
        return call(request.tool_names[0], {"result": "x"})

    names = []
    for _ in range(2):
        agent = create_agent(ScriptedModel(answer), response_format=ToolStrategy(anonymous))
        result = agent.invoke({"messages": [("user", "hi")]})
        assert result.state["structured_response"] == {"result": "x"}
        names.append(result.final_requests[0].tool_names)
    assert names[0] == names[1]
    assert names[0][0].startswith("response_format_")


@pytest.mark.parametrize(
    ("response_format", "script", "model_name"),
    [
        (ProviderStrategy(Weather), [json.dumps(SUNNY)], "scripted"),
        (Weather, [json.dumps(SUNNY)], "gpt-4o"),
        (ToolStrategy(Weather), ["x"], "scripted"),
    ],
    ids=["provider", "auto-provider", "tool-not-declared"],
)
def test_middleware_setting_a_format_on_an_agent_built_without(
    response_format: Any, script: list[Any], model_name: str
) -> None:
    class Setting(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request.override(response_format=response_format))

    build = agent_with(None, middleware=[Setting()])
    langchain, reference = on_both(build, script, model_name=model_name)
    if isinstance(response_format, ToolStrategy):
        assert_same_error(langchain, reference, ValueError)
        return
    assert_same(langchain, reference)
    assert reference.structured == Weather(**SUNNY)
