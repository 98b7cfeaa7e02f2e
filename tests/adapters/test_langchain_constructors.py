"""ScriptedChatModel and RecordingChatModel take their one argument positionally, like
ScriptedModel(turns) and RecordingModel(inner), and stay ordinary pydantic chat models."""

from __future__ import annotations

import copy
import inspect

import pytest

pytest.importorskip("langchain", reason="install hookproof[langchain] to test the adapter")

from langchain.agents import create_agent
from langchain_core.load import dumpd
from langchain_core.tools import tool

from hookproof.adapters.langchain import RecordingChatModel, ScriptedChatModel
from hookproof.errors import UsageError
from hookproof.models import call


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"found:{query}"


def test_script_and_inner_are_positional() -> None:
    model = RecordingChatModel(ScriptedChatModel([call("lookup", {"query": "x"}), "done"]))
    result = create_agent(model, [lookup]).invoke({"messages": [("user", "hi")]})
    assert result["messages"][-1].content == "done"
    assert model.last.tool_names == ["lookup"]


def test_keywords_keep_working() -> None:
    inner = ScriptedChatModel(script=["hello"], model_name="fast", provider="acme")
    model = RecordingChatModel(inner=inner)
    assert model.invoke("hi").content == "hello"
    assert model.last.model == "fast"
    assert inner.provider == "acme"


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: ScriptedChatModel(["a"], script=["b"]), "ScriptedChatModel got script twice"),
        (
            lambda: RecordingChatModel(ScriptedChatModel(["a"]), inner=ScriptedChatModel(["b"])),
            "RecordingChatModel got inner twice",
        ),
    ],
)
def test_positional_and_keyword_together_is_a_usage_error(build: object, message: str) -> None:
    with pytest.raises(UsageError, match=message) as raised:
        build()  # type: ignore[operator]
    assert isinstance(raised.value, TypeError)
    assert str(raised.value).startswith("hookproof: ")


def test_copies_dumps_and_bindings_keep_the_fields() -> None:
    model = ScriptedChatModel(["one", "two"], model_name="fast")
    renamed = model.model_copy(update={"model_name": "slow"})
    assert (renamed.script, renamed.model_name) == (["one", "two"], "slow")
    assert copy.deepcopy(model).script == ["one", "two"]
    assert model.model_dump()["script"] == ["one", "two"]
    assert dumpd(model)["type"] == "not_implemented"
    assert model.bind_tools([lookup]).invoke("hi").content == "one"
    recording = RecordingChatModel(model)
    assert recording.model_copy().inner is model
    assert type(ScriptedChatModel.model_validate({"script": ["x"]})) is ScriptedChatModel


def test_signatures_show_the_positional_argument() -> None:
    assert "script" in inspect.signature(ScriptedChatModel).parameters
    assert "inner" in inspect.signature(RecordingChatModel).parameters
