"""The bridge builds the LangChain view of a common message without LangChain's validation:
that view must be the validated one, value for value, or hooks would see other messages on
the reference engine than on LangChain.

Each shape is built both ways and compared field by field (types included: a locked mapping
is a FrozenDict, a locked list a LockedList), with what pydantic keeps beside the fields;
a twin that builds the view wrongly is shown caught.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain_core.messages import AIMessage, BaseMessage

import hookproof.adapters.langchain.bridge._quick_views as quick_module
from hookproof.adapters.langchain.bridge._quick_views import quick_view
from hookproof.adapters.langchain.bridge._views import _locked_class, validated_view
from hookproof.messages import (
    AssistantMessage,
    ImageBlock,
    SystemMessage,
    TextBlock,
    ToolCall,
    ToolMessage,
    UserMessage,
)

QUICK = {
    "plain user": UserMessage(content="Please help with my request."),
    "user with id and name": UserMessage(content="hi", id="m1", name="alice"),
    "empty user": UserMessage(content=""),
    "system": SystemMessage(content="You are a support agent."),
    "plain assistant": AssistantMessage(content="done"),
    "assistant with tool calls": AssistantMessage(
        content="",
        id="m2",
        tool_calls=[
            ToolCall(name="lookup", args={"query": "x", "tags": ["a", "b"]}, id="call_1"),
            ToolCall(name="report", args={"filters": {"since": 3, "kinds": [1, 2]}}, id=None),
        ],
    ),
    "assistant with metadata": AssistantMessage(
        content="ok",
        response_metadata={"model_name": "fast", "usage": {"in": 3, "out": [1, 2]}},
        additional_kwargs={"refusal": None, "nested": {"a": [1, {"b": 2}]}},
    ),
}
VALIDATED = {
    "text block with an id": UserMessage(content=[TextBlock(text="hi", id="b1")]),
    "two text blocks": UserMessage(content=[TextBlock(text="a"), TextBlock(text="b")]),
    "image": UserMessage(content=[ImageBlock(url="https://example.com/a.png")]),
    "invalid tool calls": AssistantMessage(
        content="", additional_kwargs={"invalid_tool_calls": [{"name": "x", "args": "{"}]}
    ),
    "provider tool calls": AssistantMessage(content="", additional_kwargs={"tool_calls": []}),
    "tool message": ToolMessage(content="found", tool_call_id="call_1"),
}


def _stored(view: BaseMessage) -> list[tuple[str, Any]]:
    """Every field's value with the type of each value inside it, in order."""
    return [(name, _typed(value)) for name, value in view.__dict__.items()]


def _typed(value: Any) -> Any:
    if isinstance(value, dict):
        return (type(value), [(key, _typed(item)) for key, item in value.items()])
    if isinstance(value, list):
        return (type(value), [_typed(item) for item in value])
    return (type(value), value)


def _kept_beside(view: BaseMessage) -> tuple[Any, ...]:
    return (
        type(view),
        view.model_fields_set,
        view.__pydantic_extra__,
        view.__pydantic_private__,
    )


@pytest.mark.parametrize("shape", list(QUICK))
def test_a_quick_view_is_the_validated_view(shape: str) -> None:
    message = QUICK[shape]

    quick, validated = quick_view(message, _locked_class), validated_view(message)

    assert quick is not None
    assert _stored(quick) == _stored(validated)
    assert _kept_beside(quick) == _kept_beside(validated)
    assert quick == validated
    assert repr(quick) == repr(validated)
    assert quick.model_dump() == validated.model_dump()


@pytest.mark.parametrize("shape", list(VALIDATED))
def test_a_shape_that_needs_validation_is_not_built_quickly(shape: str) -> None:
    assert quick_view(VALIDATED[shape], _locked_class) is None


def test_the_comparison_catches_a_quick_view_that_drops_what_pydantic_keeps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def without_extra(cls: type[BaseMessage], values: dict[str, Any]) -> BaseMessage:
        view = cls.model_construct(**values)
        object.__setattr__(view, "__pydantic_extra__", None)
        return view

    monkeypatch.setattr(quick_module, "_built", without_extra)
    message = QUICK["plain assistant"]

    quick = quick_view(message, _locked_class)

    assert quick is not None
    assert _kept_beside(quick) != _kept_beside(validated_view(message))


def test_the_comparison_catches_a_tool_call_left_unlocked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quick_module, "FrozenDict", dict)
    message = QUICK["assistant with tool calls"]

    quick = quick_view(message, _locked_class)

    assert quick is not None and isinstance(quick, AIMessage)
    assert _stored(quick) != _stored(validated_view(message))
