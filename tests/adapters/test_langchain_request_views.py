"""A bridged wrap hook is shown LangChain's ModelRequest built without LangChain's
constructor, its ``override`` makes the new request without ``dataclasses.replace``, and the
response it hands back untouched returns to the engine as the handler gave it. Each shortcut
must give exactly what LangChain's own path gives: the requests are compared field by field
(values, their order, the class) with LangChain's constructor and ``override``, a response a
hook changed in any way is converted as before, and twins that get either wrong are shown
caught.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain.agents.middleware import ModelRequest as LCModelRequest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.tools import tool

import hookproof.adapters.langchain.bridge._request_views as views_module
import hookproof.adapters.langchain.bridge._requests as requests_module
from hookproof.adapters.langchain import ScriptedChatModel
from hookproof.adapters.langchain.bridge._request_views import DEFERRED_FIELDS, LockedModelRequest
from hookproof.models import call
from hookproof.runtime import create_agent
from tests.adapters.engines import comparable, run_on_both

HI = {"messages": [("user", "hi")]}


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"found:{query}"


class Seen(AgentMiddleware):  # type: ignore[type-arg]
    """Keeps the request it is shown, then runs ``change`` on what the handler answers."""

    def __init__(self, change: Callable[[Any], Any] = lambda response: response) -> None:
        super().__init__()
        self.change = change
        self.requests: list[Any] = []

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        self.requests.append(request)
        return self.change(handler(request))


def _run(middleware: Seen) -> Any:
    """The final state of a run of an agent with ``middleware`` (the model answers "ok")."""
    agent = create_agent(
        ScriptedChatModel(["ok"]), [lookup], system_prompt="Be brief.", middleware=[middleware]
    )
    return agent.invoke(HI).state


def _shown_request() -> Any:
    seen = Seen()
    _run(seen)
    return seen.requests[0]


def _fields(request: Any) -> dict[str, Any]:
    return {field.name: getattr(request, field.name) for field in dataclasses.fields(request)}


def _stored(request: Any) -> list[tuple[str, int, type]]:
    """Each field: name, in order, the value's identity and type."""
    return [(name, id(value), type(value)) for name, value in _fields(request).items()]


def test_the_view_holds_what_langchains_constructor_would() -> None:
    view = _shown_request()

    rebuilt = LockedModelRequest(**_fields(view))

    assert type(view) is LockedModelRequest
    assert _stored(view) == _stored(rebuilt)
    assert vars(view) == vars(rebuilt)  # every field made once read
    assert view == rebuilt
    assert repr(view) == repr(rebuilt)


OVERRIDES: dict[str, dict[str, Any]] = {
    "nothing": {},
    "model": {"model": ScriptedChatModel(["other"])},
    "messages": {"messages": [HumanMessage("other")]},
    "system_message": {"system_message": SystemMessage("other")},
    "tool_choice": {"tool_choice": "any"},
    "tools": {"tools": []},
    "response_format": {"response_format": {"type": "json_object"}},
    "state": {"state": {"messages": []}},
    "runtime": {"runtime": None},
    "model_settings": {"model_settings": {"temperature": 0}},
    "several": {"tools": [], "tool_choice": "none", "model_settings": {"a": 1}},
    "tools None": {"tools": None},
    "state None": {"state": None},
    "model_settings None": {"model_settings": None},
    "system_message None": {"system_message": None},
    "system_prompt": {"system_prompt": "other"},
    "system_prompt None": {"system_prompt": None},
}


def _comparable(request: Any, view: Any, given: dict[str, Any]) -> list[tuple[str, Any, type]]:
    """Each field, in order: the view's own value or the given one (by identity), or a value
    LangChain made (an empty list, a SystemMessage from a prompt: by value)."""
    compared: list[tuple[str, Any, type]] = []
    for name, value in _fields(request).items():
        if value is getattr(view, name):
            held: Any = "the view's"
        elif name in given and value is given[name]:
            held = "given"
        else:
            held = ("made", value)
        compared.append((name, held, type(value)))
    return compared


@pytest.mark.parametrize("case", list(OVERRIDES))
def test_an_override_makes_what_langchains_override_makes(case: str) -> None:
    view = _shown_request()
    overrides = OVERRIDES[case]

    ours = view.override(**overrides)
    theirs = LCModelRequest.override(view, **overrides)

    assert type(ours) is type(theirs) is LockedModelRequest
    assert _comparable(ours, view, overrides) == _comparable(theirs, view, overrides)
    assert ours == theirs


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"temperature": 0}, TypeError),
        ({"system_prompt": "a", "system_message": SystemMessage("b")}, ValueError),
    ],
)
def test_a_refused_override_raises_langchains_error(
    overrides: dict[str, Any], error: type[Exception]
) -> None:
    view = _shown_request()

    with pytest.raises(error) as ours:
        view.override(**overrides)
    with pytest.raises(error) as theirs:
        LCModelRequest.override(view, **overrides)

    assert str(ours.value) == str(theirs.value)


def test_the_comparison_catches_an_override_that_keeps_a_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(views_module, "_emptied", lambda overrides: False)
    view = _shown_request()

    ours, theirs = view.override(tools=None), LCModelRequest.override(view, tools=None)

    assert _comparable(ours, view, {"tools": None}) != _comparable(theirs, view, {"tools": None})


# -- fields made when first read ----------------------------------------------------------------


def test_a_field_is_made_once_for_a_view_and_the_requests_made_from_it() -> None:
    view = _shown_request()
    overridden = view.override(tool_choice="any")  # before any field is read
    copied = copy.copy(view)

    for name in DEFERRED_FIELDS:
        assert getattr(overridden, name) is getattr(view, name)
        assert getattr(copied, name) is getattr(view, name)
    assert vars(copied) == vars(view)


def test_an_unknown_attribute_raises_as_on_langchains_request() -> None:
    view = _shown_request()
    plain = LCModelRequest(**_fields(view))

    with pytest.raises(AttributeError) as ours:
        view.temperature  # noqa: B018
    with pytest.raises(AttributeError) as theirs:
        plain.temperature  # type: ignore[attr-defined]  # noqa: B018

    assert str(ours.value) == str(theirs.value).replace("ModelRequest", "LockedModelRequest")


class ReplaysTheFirstRequest(AgentMiddleware):  # type: ignore[type-arg]
    """Passes every call the first request it was shown, with the current call's model: the
    model is sent the first call's messages again."""

    def __init__(self) -> None:
        super().__init__()
        self.first: Any = None

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        if self.first is None:
            self.first = request
        return handler(self.first.override(model=request.model))


def _replaying_runs() -> tuple[Any, Any]:
    script = [call("lookup", {"query": "x"}, id="c1"), "done"]

    def langchain_build(model: Any) -> Any:
        return langchain_create_agent(model, [lookup], middleware=[ReplaysTheFirstRequest()])

    def reference_build(model: Any) -> Any:
        return create_agent(model, [lookup], middleware=[ReplaysTheFirstRequest()])

    return run_on_both(langchain_build, reference_build, script=script)


def test_a_request_made_from_an_earlier_calls_view_sends_that_calls_messages() -> None:
    langchain, reference = _replaying_runs()

    assert langchain.error is None and reference.error is None
    sent = [comparable(request) for request in reference.final_requests]
    assert sent == list(map(comparable, langchain.final_requests))
    assert len(sent[1].messages) == 1  # the first call's history again


def test_the_comparison_catches_a_crossing_that_takes_any_unmade_field_as_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shared_by_all = SimpleNamespace(made={})
    monkeypatch.setattr(requests_module, "deferred_of", lambda request: shared_by_all)

    langchain, reference = _replaying_runs()

    assert reference.error is None
    assert [len(r.messages) for r in reference.final_requests] != [
        len(r.messages) for r in langchain.final_requests
    ]


# -- the response handed back ------------------------------------------------------------------


def _replaced_result(response: Any) -> Any:
    response.result = [AIMessage("changed")]
    return response


def _structured(response: Any) -> Any:
    response.structured_response = {"changed": True}
    return response


def _rebuilt(response: Any) -> Any:
    return type(response)(result=list(response.result))


def _texts(state: Any) -> list[str]:
    return [message.text for message in state["messages"]]


@pytest.fixture
def conversions(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every response converted back from LangChain's while the test runs."""
    converted: list[Any] = []
    real = requests_module.hp_model_result

    def counting(outcome: Any) -> Any:
        converted.append(outcome)
        return real(outcome)

    monkeypatch.setattr(requests_module, "hp_model_result", counting)
    return converted


def test_an_untouched_response_reaches_the_state_unconverted(conversions: list[Any]) -> None:
    assert _texts(_run(Seen())) == ["hi", "ok"]
    assert conversions == []


@pytest.mark.parametrize(
    ("change", "texts"),
    [
        (_replaced_result, ["hi", "changed"]),
        (_rebuilt, ["hi", "ok"]),
        (lambda response: AIMessage("instead"), ["hi", "instead"]),
    ],
)
def test_a_response_the_hook_changed_is_converted(
    change: Callable[[Any], Any], texts: list[str], conversions: list[Any]
) -> None:
    assert _texts(_run(Seen(change))) == texts
    assert len(conversions) == 1


def test_a_structured_response_the_hook_set_reaches_the_state() -> None:
    assert _run(Seen(_structured))["structured_response"] == {"changed": True}


def test_the_tests_catch_a_crossing_that_returns_the_handlers_response_regardless(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(requests_module, "_untouched", lambda response, sent: True)

    assert _texts(_run(Seen(_replaced_result))) == ["hi", "ok"]
    assert "structured_response" not in _run(Seen(_structured))
