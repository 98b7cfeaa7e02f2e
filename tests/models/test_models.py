"""ScriptedModel and RecordingModel."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof.errors import InvalidInputError, ScriptExhausted, UsageError
from hookproof.messages import AssistantMessage, ToolCall
from hookproof.models import FinalRequest, RecordingModel, ScriptedModel, call
from hookproof.runtime import AgentMiddleware, create_agent
from tests.helpers import add, lookup

HI = {"messages": [("user", "hi")]}


def _request(**values: Any) -> FinalRequest:
    return FinalRequest(model="m", **values)


def test_turn_kinds_and_deterministic_ids() -> None:
    model = ScriptedModel(
        [
            call("a", {"x": 1}),
            [call("b"), call("c", id="fixed")],
            AssistantMessage("", tool_calls=[ToolCall(name="d")]),
            "answer",
        ]
    )
    replies = [model.invoke(_request()) for _ in range(4)]
    assert [c.id for r in replies for c in r.tool_calls] == ["call_0", "call_1", "fixed", "call_2"]
    assert replies[0].tool_calls[0].args == {"x": 1}
    assert replies[3].text == "answer" and replies[3].tool_calls == ()
    assert model.remaining == 0


def test_exception_turn_is_raised() -> None:
    model = ScriptedModel([TimeoutError("slow")])
    with pytest.raises(TimeoutError, match="slow"):
        model.invoke(_request())


def test_function_script_sees_the_final_request() -> None:
    def respond(request: FinalRequest) -> Any:
        return call("lookup", {"query": "x"}) if len(request.messages) == 1 else "done"

    model = RecordingModel(ScriptedModel(respond))
    result = create_agent(model, [lookup]).invoke(HI)
    assert result.text == "done"
    assert len(model.requests) == 2


def test_script_exhausted_names_the_call_and_shows_the_request() -> None:
    agent = create_agent(ScriptedModel([call("lookup", {"query": "x"})], name="fast"), [lookup])
    with pytest.raises(ScriptExhausted) as caught:
        agent.invoke(HI)
    message = str(caught.value)
    assert "'fast' was called a 2nd time but its script has 1 turn." in message
    assert "tools=['lookup']" in message
    assert "tool: 'found:x'" in message


@pytest.mark.parametrize("bad", ["done", 3, None])
def test_scripted_model_rejects_non_scripts(bad: Any) -> None:
    with pytest.raises(UsageError, match="list of turns or a function"):
        ScriptedModel(bad)


def test_bad_turn_is_explained_when_played() -> None:
    with pytest.raises(UsageError, match="turn 0 of the script is a int"):
        ScriptedModel([42]).invoke(_request())  # type: ignore[list-item]


def test_call_validates_its_arguments() -> None:
    with pytest.raises(UsageError, match="tool name"):
        call("")
    with pytest.raises(UsageError, match="arguments as a dict"):
        call("x", ["a"])  # type: ignore[arg-type]


def test_recording_model_records_every_layer_result_and_identity() -> None:
    class Settings(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request.override(tool_choice="any", model_settings={"temperature": 0.2}))

    model = RecordingModel(ScriptedModel([call("add", {"a": 1}), "done"], name="fast"))
    create_agent(model, [lookup, add], system_prompt="SYS", middleware=[Settings()]).invoke(HI)
    first, second = model.requests
    assert first.model == "fast"
    assert first.tool_names == ["add", "lookup"]
    assert first.tool("add").parameters["properties"]["b"]["default"] == 1
    assert first.tool_choice == "any" and first.model_settings == {"temperature": 0.2}
    assert first.system_text == "SYS"
    assert [m.role for m in second.messages] == ["user", "assistant", "tool"]
    assert model.last is second
    assert model.responses[1].text == "done"


def test_recording_model_last_before_any_call_is_explained() -> None:
    with pytest.raises(InvalidInputError, match="recorded no request yet"):
        _ = RecordingModel(ScriptedModel([])).last


class Falsy(RecordingModel):
    def __bool__(self) -> bool:
        return False


def test_a_falsy_model_is_still_the_one_called() -> None:
    model = Falsy(ScriptedModel(["done"]))
    assert not model
    assert create_agent(model).invoke(HI).text == "done"
    assert len(model.requests) == 1


def test_routing_to_another_recording_model() -> None:
    fast = RecordingModel(ScriptedModel(["fast answer"], name="fast"))
    smart = RecordingModel(ScriptedModel(["smart answer"], name="reasoning"))

    class Route(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request.override(model=smart))

    result = create_agent(fast, middleware=[Route()]).invoke(HI)
    assert result.text == "smart answer"
    assert fast.requests == () and smart.last.model == "reasoning"
    assert result.trace.model_calls[0].data["model"] == "reasoning"


def test_models_are_not_collected_as_tests_and_work_async() -> None:
    assert ScriptedModel.__test__ is False and RecordingModel.__test__ is False
    model = RecordingModel(ScriptedModel(["done"]))
    assert asyncio.run(create_agent(model).ainvoke(HI)).text == "done"


@given(st.lists(st.sampled_from(["lookup", "add"]), max_size=6), st.integers(0, 99))
def test_any_schema_respecting_script_runs_to_completion(names: list[str], number: int) -> None:
    args = {"lookup": {"query": str(number)}, "add": {"a": number}}
    turns: list[Any] = [call(name, args[name]) for name in names] + ["done"]
    model = RecordingModel(ScriptedModel(turns))
    result = create_agent(model, [lookup, add]).invoke(HI)
    assert result.text == "done"
    tool_messages = [m for m in result.messages if m.role == "tool"]
    assert [m.status for m in tool_messages] == ["success"] * len(names)
    assert len(model.requests) == len(names) + 1
