"""The runtime's vocabulary speaks LangChain v1's API: each behaviour is checked beside
LangChain's own (langchain.agents.middleware), which is the oracle where it is installed."""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.errors import HookproofError
from hookproof.messages import SystemMessage
from hookproof.models import RecordingModel, ScriptedModel
from hookproof.runtime import AgentMiddleware, ModelRequest, create_agent

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
