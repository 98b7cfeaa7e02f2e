"""ModelRequest and ToolCallRequest: override is deep, in-place change is refused."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof.errors import ImmutableError, UsageError
from hookproof.messages import SystemMessage, TextBlock, ToolCall, UserMessage
from hookproof.models import RecordingModel, ScriptedModel
from hookproof.runtime import AgentMiddleware, ModelRequest, ToolCallRequest, create_agent
from tests.helpers import add, lookup


def _rich_request() -> ModelRequest:
    system = SystemMessage(
        [TextBlock(text="base", cache_control={"type": "ephemeral"}), "more"],
        id="sys-1",
        name="system",
        additional_kwargs={"k": [1, 2]},
        response_metadata={"r": {"deep": True}},
    )
    return ModelRequest.create(
        model="m",
        messages=[UserMessage("hi", id="u1")],
        system_message=system,
        tools=[lookup, add],
        tool_choice="auto",
        state={"messages": [], "n": {"a": [1]}},
        model_settings={"temperature": 0.2, "stop": ["x"]},
    )


def test_override_returns_new_request_and_leaves_original_deeply_equal() -> None:
    original = _rich_request()
    before = copy.deepcopy(original)
    changed = original.override(
        model="other",
        tools=[lookup],
        messages=[*original.messages, ("user", "again")],
        model_settings={"temperature": 0.9},
    )
    assert original == before
    assert changed.model == "other"
    assert changed.tool_names == ["lookup"]
    assert [m.text for m in changed.messages] == ["hi", "again"]
    assert original.tool_names == ["add", "lookup"]


@pytest.mark.parametrize(
    "mutate",
    [
        pytest.param(lambda r: setattr(r, "model", "x"), id="assign-model"),
        pytest.param(lambda r: r.messages.append(UserMessage("x")), id="messages-append"),
        pytest.param(lambda r: r.tools.clear(), id="tools-clear"),
        pytest.param(lambda r: r.model_settings.update(temperature=1), id="settings-update"),
        pytest.param(lambda r: r.state["n"]["a"].append(2), id="nested-state"),
        pytest.param(lambda r: r.system_message.additional_kwargs["k"].append(3), id="metadata"),
        pytest.param(lambda r: delattr(r, "tools"), id="delete-field"),
    ],
)
def test_in_place_mutation_raises_a_clear_error(mutate: Any) -> None:
    request = _rich_request()
    before = copy.deepcopy(request)
    with pytest.raises(ImmutableError, match=r"hookproof: .*override"):
        mutate(request)
    assert request == before


def test_pydantic_assignment_on_messages_is_refused() -> None:
    message = UserMessage("hi")
    with pytest.raises(ValueError, match="frozen"):
        message.id = "x"  # type: ignore[misc]


def test_override_rejects_unknown_fields_with_a_suggestion() -> None:
    with pytest.raises(UsageError, match="Did you mean 'tools'"):
        _rich_request().override(tool=[])


def test_tool_call_request_override_is_deep() -> None:
    request = ToolCallRequest(tool_call=ToolCall(name="lookup", args={"q": [1]}, id="c"), tool=None)
    changed = request.override(tool=lookup, tool_call={"name": "add", "args": {"a": 1}, "id": "c"})
    assert request.tool is None and request.tool_call.name == "lookup"
    assert changed.tool is lookup and changed.tool_call.args == {"a": 1}
    with pytest.raises(ImmutableError):
        request.tool_call.args["q"].append(2)


class Mutator(AgentMiddleware):
    """A buggy middleware that tries to filter tools in place."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        request.tools.clear()
        return handler(request)


def test_in_place_mutation_inside_a_real_run_fails_loudly() -> None:
    agent = create_agent(ScriptedModel(["done"]), [lookup], middleware=[Mutator()])
    with pytest.raises(ImmutableError, match="immutable"):
        agent.invoke({"messages": [("user", "hi")]})


@given(
    temperature=st.floats(allow_nan=False, allow_infinity=False),
    extra=st.lists(st.text(max_size=5), max_size=4),
)
def test_override_never_changes_the_original(temperature: float, extra: list[str]) -> None:
    original = _rich_request()
    before = copy.deepcopy(original)
    original.override(
        model_settings={**original.model_settings, "temperature": temperature},
        messages=[*original.messages, *(UserMessage(text) for text in extra)],
    )
    assert original == before


def test_recorded_final_request_equals_what_the_layers_built() -> None:
    class Narrow(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request.override(tools=[lookup], model_settings={"temperature": 0}))

    model = RecordingModel(ScriptedModel(["done"]))
    create_agent(model, [lookup, add], system_prompt="S", middleware=[Narrow()]).invoke(
        {"messages": [("user", "hi")]}
    )
    final = model.last
    assert final.tool_names == ["lookup"]
    assert final.tools[0].parameters["required"] == ["query"]
    assert final.model_settings == {"temperature": 0}
    assert final.system_text == "S"
    assert [m.text for m in final.messages] == ["hi"]
