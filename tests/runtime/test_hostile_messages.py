"""Hostile runtime inputs: malformed messages, wherever they enter a run, get a hookproof
error naming their position; tool names that would corrupt a snapshot line or a provider
request are refused when the tool is built.

This module grows with each new way messages or tools enter: add the input that broke it here.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof.errors import HookproofError, InvalidInputError, UsageError
from hookproof.messages import ToolCall, ToolMessage, coerce_message
from hookproof.models import ScriptedModel, call
from hookproof.requests import ModelRequest
from hookproof.runtime import Command, ToolRuntime, before_model, create_agent, tool
from hookproof.tools import ToolSchema

# (a bad message, words the error must hold)
BAD_MESSAGES: list[tuple[Any, str]] = [
    (("user", 5), "content is int 5, not text: pass a str"),
    (("user", 2.5), "content is float 2.5, not text"),
    (("user", None), "content is NoneType None, not text"),
    (("user", b"hi"), "content is bytes, not text: decode it first"),
    (("user", bytearray(b"hi")), "content is bytearray, not text"),
    ({"role": "user", "content": 5}, "content is int 5"),
    ({"role": "user", "content": None}, "content is NoneType None"),
    ({"role": "user", "content": {"type": "text", "text": "hi"}}, "wrap one content block"),
    (("user", [1]), "content[0] is not a content block"),
    (("user", [{"type": "nope"}]), "content[0] is not a content block"),
    (("user", [{"type": "text"}]), "content[0].text is required but missing"),
    (("assistant", [{"type": "tool_call", "name": 5}]), "content[0].name: must be a string"),
    (("tool", "done"), "tool_call_id is required but missing"),
    ({"role": "user", "content": "hi", "colour": "red"}, "colour is not a field"),
    ({"role": "user", "content": "hi", 1: 2}, "keys that are not strings"),
    ({"role": "user", "content": "hi", "id": 5}, "id: must be a string; got int 5"),
    (
        {"role": "tool", "content": "x", "tool_call_id": "c", "status": "bad"},
        "status: input should be 'success' or 'error'",
    ),
    (
        {"role": "assistant", "content": "", "tool_calls": [{"name": 1}]},
        "tool_calls[0].name: must be a string",
    ),
]


@pytest.mark.parametrize(("bad", "words"), BAD_MESSAGES, ids=repr)
def test_invoke_input_names_the_position_of_a_bad_message(bad: Any, words: str) -> None:
    agent = create_agent(ScriptedModel(["ok"]))
    with pytest.raises(InvalidInputError) as caught:
        agent.invoke({"messages": [("user", "hi"), ("assistant", "yes"), bad]})
    message = str(caught.value)
    assert message.startswith("hookproof: input['messages'][2] ")
    assert words in message
    assert "validation error" not in message and "pydantic" not in message


@pytest.mark.parametrize("content", [5, None, b"x"], ids=repr)
def test_a_hook_returning_a_bad_message_is_named_by_position(content: object) -> None:
    @before_model
    def adds(state: Any, runtime: Any) -> dict[str, Any]:
        return {"messages": [("user", "fine"), ("user", content)]}

    agent = create_agent(ScriptedModel(["ok"]), middleware=[adds])
    with pytest.raises(InvalidInputError, match=r"^hookproof: messages update \[1\] is not a"):
        agent.invoke({"messages": [("user", "hi")]})


def test_a_tool_command_with_a_bad_message_is_named_by_position() -> None:
    @tool
    def writes(runtime: ToolRuntime) -> Command:
        """Writes a malformed message into state."""
        answer = ToolMessage("done", tool_call_id=runtime.tool_call_id)
        return Command(update={"messages": [answer, {"role": "user", "content": 5}]})

    agent = create_agent(ScriptedModel([call("writes", {}), "ok"]), [writes])
    with pytest.raises(InvalidInputError, match=r"messages update \[1\].*content is int 5"):
        agent.invoke({"messages": [("user", "hi")]})


@pytest.mark.parametrize("value", [5, None, b"hi", object(), ("user",), ("user", "a", "b")])
def test_a_value_that_is_no_message_at_all_is_a_usage_error(value: object) -> None:
    with pytest.raises(UsageError, match=r"^hookproof: input\['messages'\]\[0\] is a"):
        create_agent(ScriptedModel(["ok"])).invoke({"messages": [value]})


@pytest.mark.parametrize("role", [None, 5, "robot", b"user"])
def test_an_unknown_role_is_named(role: object) -> None:
    with pytest.raises(
        InvalidInputError, match=r"^hookproof: m\[3\] has role .* not a message role"
    ):
        coerce_message((role, "hi"), where="m[3]")


def test_the_error_is_still_a_value_error_for_callers_that_caught_pydantic_errors() -> None:
    with pytest.raises(ValueError, match="not a valid user message"):
        coerce_message(("user", 5))


BAD_TOOL_NAMES = [
    ("orders/lookup", "contains '/', a path separator"),
    ("..\\orders", "contains '\\\\', a path separator"),
    ("look\nup", "contains '\\n', a control or invisible character"),
    ("look\rup", "contains '\\r'"),
    ("tab\there", "contains '\\t'"),
    ("nul\x00", "contains '\\x00'"),
    ("bell\x07", "contains '\\x07'"),
    ("left\u202eright", "contains '\\u202e'"),
    ("line\u2028sep", "contains '\\u2028'"),
    ("half\ud800", "contains '\\ud800'"),
    ("", "is empty"),
    ("a" * 65, "is 65 characters long; providers accept at most 64"),
]


def test_a_tool_name_of_64_characters_is_the_longest_accepted() -> None:
    assert ToolSchema(name="a" * 64).name == "a" * 64


@pytest.mark.parametrize(("name", "problem"), BAD_TOOL_NAMES, ids=repr)
def test_at_tool_refuses_a_name_that_would_corrupt_files_or_requests(
    name: str, problem: str
) -> None:
    def lookup(query: str) -> str:
        """Look an order up."""
        return query

    with pytest.raises(InvalidInputError) as caught:
        tool(name)(lookup)
    message = str(caught.value)
    assert message.startswith(f"hookproof: tool name {name!r} {problem}")
    assert "snapshot files and sent to provider APIs" in message


@pytest.mark.parametrize(("name", "problem"), BAD_TOOL_NAMES, ids=repr)
def test_a_tool_schema_given_to_a_request_is_refused_the_same_way(name: str, problem: str) -> None:
    with pytest.raises(InvalidInputError, match=f"^hookproof: tool name .* {re.escape(problem)}"):
        ModelRequest.create(model="m", tools=[ToolSchema(name=name)])
    with pytest.raises(InvalidInputError, match=re.escape(problem)):
        ModelRequest.create(model="m", tools=[{"name": name, "description": "d"}])
    good = ModelRequest.create(model="m", tools=[ToolSchema(name="lookup")])
    with pytest.raises(InvalidInputError, match=re.escape(problem)):
        good.tools[0].override(name=name)


def test_a_tool_name_of_another_type_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="a tool name must be a str, got int 5"):
        ToolSchema(name=5)
    with pytest.raises(UsageError, match="a tool name must be a str, got NoneType"):
        ToolSchema.model_validate({"description": "no name"})


@pytest.mark.parametrize("name", ["lookup", "lookup_orders-2", "with space", "über.tool"])
def test_ordinary_names_still_build(name: str) -> None:
    assert ToolSchema(name=name).name == name


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"parameters": 5}, "parameters must be a mapping (a JSON Schema object), got int"),
        ({"parameters": [1]}, "parameters must be a mapping (a JSON Schema object), got list"),
        ({"description": 3}, "description must be a string, got int"),
        ({"colour": "red"}, "colour is not a field"),
    ],
)
def test_a_tool_schema_with_a_bad_field_is_an_invalid_input_error(
    fields: dict[str, Any], words: str
) -> None:
    prefix = "hookproof: tool schema 'lookup' is invalid: "
    with pytest.raises(InvalidInputError, match=re.escape(prefix + words)):
        ToolSchema(name="lookup", **fields)
    with pytest.raises(InvalidInputError, match=re.escape(prefix + words)):
        ModelRequest.create(model="m", tools=[{"name": "lookup", **fields}])


# -- a corpus: any value gives a message or a hookproof error, nothing else ----------------

_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6) | st.binary(),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=6) | st.integers(), inner, max_size=3)
    ),
    max_leaves=6,
)
_FIELDS = st.sampled_from(
    ["content", "id", "name", "tool_calls", "tool_call_id", "status", "additional_kwargs"]
)
_MESSAGES = (
    st.tuples(st.sampled_from(["user", "assistant", "tool", "system", "robot"]), _VALUES)
    | st.dictionaries(_FIELDS, _VALUES, max_size=4).map(lambda data: {"role": "user", **data})
    | _VALUES
)


@settings(max_examples=300, deadline=None)
@given(_MESSAGES)
def test_any_value_is_a_message_or_a_hookproof_error(value: object) -> None:
    try:
        coerce_message(value, where="m[0]")
    except HookproofError as error:
        assert str(error).startswith("hookproof: m[0] ")  # noqa: PT017


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=6), _VALUES)
def test_any_tool_schema_data_builds_or_is_a_hookproof_error(name: str, value: object) -> None:
    for data in ({"name": name}, {"name": name, "description": value, "parameters": value}):
        try:
            ToolSchema.model_validate(data)
        except HookproofError as error:
            assert str(error).startswith("hookproof: tool ")  # noqa: PT017


def _deep(levels: int = 100_000) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(
    "value",
    [
        "deep",
        ("user", "deep"),
        ("deep", "hi"),
        {"role": "user", "content": "hi", "id": "deep"},
        ("user", [{"type": "text", "text": "deep"}]),
    ],
    ids=repr,
)
def test_a_deeply_nested_value_gives_a_short_error_not_a_recursion_error(value: Any) -> None:
    def nest(item: Any) -> Any:
        if item == "deep":
            return _deep()
        if isinstance(item, tuple):
            return tuple(nest(part) for part in item)
        if isinstance(item, list):
            return [nest(part) for part in item]
        if isinstance(item, dict):
            return {key: nest(part) for key, part in item.items()}
        return item

    with pytest.raises(HookproofError) as caught:
        coerce_message(nest(value), where="m[0]")
    assert "[[[[...]]]]" in str(caught.value) and len(str(caught.value)) < 600


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"name": "search", "args": "{not json"}, "args: must be a dict; got str '{not json'"),
        ({"name": "search", "args": '{"q": 1}'}, "args: must be a dict; got str"),
        ({"name": "search", "args": [1, 2]}, "args: must be a dict; got list"),
        ({"name": 5}, "name: must be a string; got int 5"),
        ({"args": {}}, "name is required but missing"),
    ],
    ids=repr,
)
def test_a_malformed_tool_call_is_an_invalid_input_error(
    fields: dict[str, Any], problem: str
) -> None:
    with pytest.raises(InvalidInputError) as caught:
        ToolCall(**fields)
    message = str(caught.value)
    assert message.startswith(f"hookproof: not a valid ToolCall: {problem}")
    assert "json.loads a provider's JSON string first" in message
