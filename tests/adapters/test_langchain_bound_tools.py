"""The chat model is bound with the tool objects LangChain's create_agent binds: the
LangChain tools themselves and, for a response format, LangChain's structured-output tool
(a chat model's bind_tools may read more than a tool's schema), on both engines."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.agents.structured_output import ToolStrategy
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import BaseTool, tool
from pydantic import BaseModel, Field

from hookproof.adapters.langchain import on_reference_engine


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: sunny"


class Person(BaseModel):
    """A person."""

    name: str
    age: int


class BindingModel(GenericFakeChatModel):  # type: ignore[misc]
    """Keeps what bind_tools was given; answers by calling the last tool bound."""

    bound: list[Any] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        self.bound = list(tools)
        return self

    def _generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> Any:
        last = self.bound[-1]
        name = last.name if isinstance(last, BaseTool) else last["function"]["name"]
        call = {"name": name, "args": {"name": "Maya", "age": 29}, "id": "c1"}
        self.messages = iter([AIMessage("", tool_calls=[{**call, "type": "tool_call"}])])
        return super()._generate(messages, *args, **kwargs)


def _bound(build: Any) -> list[Any]:
    model = BindingModel(messages=iter(()))
    build(model).invoke({"messages": [("user", "who?")]})
    return model.bound


def _shape(item: Any) -> tuple[str, str]:
    if isinstance(item, BaseTool):
        return (type(item).__name__, item.name)
    return ("dict", item["function"]["name"])


def _agent(model: Any) -> Any:
    return langchain_create_agent(model, [lookup], response_format=ToolStrategy(Person))


def test_the_model_is_bound_with_langchains_tool_objects() -> None:
    on_langchain = _bound(_agent)
    on_reference = _bound(on_reference_engine(_agent))
    assert on_langchain[0] is lookup
    assert on_reference[0] is lookup
    assert list(map(_shape, on_reference)) == list(map(_shape, on_langchain))
    assert _shape(on_reference[-1]) == ("StructuredTool", "Person")
