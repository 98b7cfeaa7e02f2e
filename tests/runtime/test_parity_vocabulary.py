"""The runtime's vocabulary speaks LangChain v1's API: each behaviour is checked beside
LangChain's own (langchain.agents.middleware), which is the oracle where it is installed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from hookproof._frozen import freeze
from hookproof.errors import HookproofError, ImmutableError
from hookproof.messages import SystemMessage, ToolCall
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.runtime import AgentMiddleware, ModelRequest, ToolCallRequest, create_agent
from tests.helpers import lookup

HI = {"messages": [("user", "hi")]}


def _langchain() -> Any:
    return pytest.importorskip("langchain.agents.middleware")


# -- 1. ModelRequest.system_prompt ----------------------------------------------------------


def test_system_prompt_on_construction_becomes_the_system_message() -> None:
    lc = _langchain()
    for build in (ModelRequest, ModelRequest.create):
        request = build(model="m", system_prompt="be brief")
        assert request.system_message == SystemMessage("be brief")
        assert request.system_prompt == "be brief"
    assert lc.ModelRequest(model="m", messages=[], system_prompt="be brief").system_prompt == (
        "be brief"
    )


def test_system_prompt_none_keeps_the_system_message_on_construction() -> None:
    lc = _langchain()
    given = SystemMessage("kept")
    assert ModelRequest(model="m", system_prompt=None, system_message=given).system_message == (
        given
    )
    kept = lc.ModelRequest(model="m", messages=[], system_prompt=None, system_message=_lc_system())
    assert kept.system_prompt == "kept"


def test_system_prompt_override_replaces_and_none_clears() -> None:
    lc = _langchain()
    request = ModelRequest(model="m", system_prompt="old")
    assert request.override(system_prompt="new").system_message == SystemMessage("new")
    assert request.override(system_prompt=None).system_message is None
    assert request.system_prompt == "old"
    lc_request = lc.ModelRequest(model="m", messages=[], system_prompt="old")
    assert lc_request.override(system_prompt="new").system_prompt == "new"
    assert lc_request.override(system_prompt=None).system_message is None


def _lc_system(text: str = "kept") -> Any:
    from langchain_core.messages import SystemMessage as LCSystemMessage

    return LCSystemMessage(content=text)


def test_system_prompt_with_system_message_is_a_value_error_as_in_langchain() -> None:
    lc = _langchain()
    with pytest.raises(HookproofError, match="both system_prompt and system_message") as built:
        ModelRequest(model="m", system_prompt="a", system_message=SystemMessage("b"))
    with pytest.raises(HookproofError, match="both system_prompt and system_message") as changed:
        ModelRequest(model="m").override(system_prompt="a", system_message=None)
    assert isinstance(built.value, ValueError) and isinstance(changed.value, ValueError)
    with pytest.raises(ValueError, match="system_prompt and system_message"):
        lc.ModelRequest(model="m", messages=[], system_prompt="a", system_message=_lc_system())
    with pytest.raises(ValueError, match="system_prompt and system_message"):
        lc.ModelRequest(model="m", messages=[]).override(system_prompt="a", system_message=None)


def test_system_prompt_of_the_wrong_type_is_a_usage_error() -> None:
    with pytest.raises(TypeError, match="system_prompt must be a str"):
        ModelRequest(model="m", system_prompt=3)  # type: ignore[arg-type]


def test_a_layer_setting_system_prompt_reaches_the_model() -> None:
    class Prompted(AgentMiddleware):
        def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
            return handler(request.override(system_prompt=f"{request.system_prompt}!"))

    model = RecordingModel(ScriptedModel(["done"]))
    create_agent(model, system_prompt="base", middleware=[Prompted()]).invoke(HI)
    assert model.requests[0].system_text == "base!"


# -- 2. ToolCall is a Mapping ---------------------------------------------------------------


def test_a_tool_call_reads_like_langchains_tool_call_dict() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.messages.tool import tool_call as lc_tool_call

    ours = ToolCall(name="lookup", args={"query": "x"}, id="c1")
    theirs = lc_tool_call(name="lookup", args={"query": "x"}, id="c1")
    assert isinstance(ours, Mapping)
    assert list(ours) == list(ours.keys()) == list(theirs)
    assert {**ours} == dict(ours.items()) == theirs
    assert list(ours.values()) == list(theirs.values())
    assert (len(ours), "type" in ours, "nope" in ours) == (len(theirs), True, False)
    assert (ours["type"], ours.get("id"), ours.get("nope", 0)) == ("tool_call", "c1", 0)
    with pytest.raises(KeyError):
        ours["nope"]


def test_a_tool_call_keeps_its_attributes_dump_and_immutability() -> None:
    ours = ToolCall(name="lookup", args={"query": "x"}, id="c1")
    assert (ours.name, ours.args, ours.id, ours.type) == (
        "lookup",
        {"query": "x"},
        "c1",
        "tool_call",
    )
    assert ours.model_dump() == {"name": "lookup", "args": {"query": "x"}, "id": "c1"}
    assert repr(ours) == "ToolCall(name='lookup', args={'query': 'x'}, id='c1')"
    assert ours != {**ours} and hash(ours) == hash(ToolCall.model_validate({**ours}))
    with pytest.raises(TypeError):
        ours["name"] = "other"  # type: ignore[index]
    with pytest.raises(ValueError, match="frozen"):
        ours.name = "other"  # type: ignore[misc]
    with pytest.raises(ValueError, match="tool_call"):
        ToolCall(name="lookup", type="function")  # type: ignore[arg-type]


def test_freezing_keeps_a_tool_call_a_tool_call() -> None:
    ours = ToolCall(name="lookup")
    assert freeze({"pending": [ours]})["pending"][0] is ours


def test_a_spread_tool_call_overrides_a_tool_call_request() -> None:
    request = ToolCallRequest(tool_call=ToolCall(name="lookup", id="c1"), tool=lookup)
    changed = request.override(tool_call={**request.tool_call, "args": {"query": "new"}})
    assert changed.tool_call == ToolCall(name="lookup", args={"query": "new"}, id="c1")
    same = request.override(tool_call=request.tool_call)
    assert same.tool_call is request.tool_call
    with pytest.raises(ImmutableError):
        request.tool_call = changed.tool_call  # type: ignore[misc]


def test_a_layer_rewriting_args_with_a_spread_runs_the_tool_with_them() -> None:
    class Rewrite(AgentMiddleware):
        def wrap_tool_call(self, request: ToolCallRequest, handler: Any) -> Any:
            args = {**request.tool_call["args"], "query": "rewritten"}
            return handler(request.override(tool_call={**request.tool_call, "args": args}))

    model = ScriptedModel([call("lookup", {"query": "x"}), "done"])
    result = create_agent(model, [lookup], middleware=[Rewrite()]).invoke(HI)
    assert [m.text for m in result.messages][2] == "found:rewritten"
