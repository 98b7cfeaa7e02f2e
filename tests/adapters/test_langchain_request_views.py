"""A bridged wrap hook is shown LangChain's ModelRequest built without LangChain's
constructor, its ``override`` makes the new request without ``dataclasses.replace``, and the
response it hands back untouched returns to the engine as the handler gave it. Each shortcut
must give exactly what LangChain's own path gives: the requests are compared field by field
(values, their order, the class) with LangChain's constructor and ``override``, a response a
hook changed in any way is converted as before, and twins that get either wrong are shown
caught.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents.middleware import AgentMiddleware
from langchain.agents.middleware import ModelRequest as LCModelRequest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.tools import tool

import hookproof.adapters.langchain.bridge._request_views as views_module
import hookproof.adapters.langchain.bridge._requests as requests_module
from hookproof.adapters.langchain import ScriptedChatModel
from hookproof.adapters.langchain.bridge._request_views import LockedModelRequest
from hookproof.runtime import create_agent

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


def _stored(request: Any) -> list[tuple[str, int, type]]:
    """Each field as the instance holds it: name, in order, the value's identity and type."""
    return [(name, id(value), type(value)) for name, value in vars(request).items()]


def test_the_view_holds_what_langchains_constructor_would() -> None:
    view = _shown_request()

    rebuilt = LockedModelRequest(**vars(view))

    assert type(view) is LockedModelRequest
    assert _stored(view) == _stored(rebuilt)
    assert view == rebuilt


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
    for name, value in vars(request).items():
        if value is vars(view)[name]:
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
