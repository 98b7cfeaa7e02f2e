"""The LangChain bridge reads the hooks a middleware class defines on every build, as
LangChain's ``create_agent`` does: a hook set on the class after a first build (as
``monkeypatch.setattr`` does in a test) runs from then on, and one removed stops running."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware

from hookproof.adapters.langchain import ScriptedChatModel, on_reference_engine


def _run(middleware: AgentMiddleware) -> list[Any]:
    def build(model: Any) -> Any:
        return create_agent(model, [], middleware=[middleware])

    agent = on_reference_engine(build)(ScriptedChatModel(["Hello!"]))
    return agent.invoke({"messages": [("user", "hi")]})["messages"]


def _tagging_wrap(self: Any, request: Any, handler: Any) -> Any:
    self.seen.append("wrap_model_call")
    return handler(request)


def _make_class(name: str) -> type[AgentMiddleware]:
    class Logger(AgentMiddleware):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[str] = []

        def before_model(self, state: Any, runtime: Any) -> None:
            self.seen.append("before_model")

    Logger.__name__ = Logger.__qualname__ = name
    return Logger


def test_a_hook_set_on_the_class_after_the_first_build_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    logger_class = _make_class("LoggerA")
    first = logger_class()
    _run(first)
    assert first.seen == ["before_model"]
    monkeypatch.setattr(logger_class, "wrap_model_call", _tagging_wrap, raising=False)
    second = logger_class()
    _run(second)
    assert second.seen == ["before_model", "wrap_model_call"]


def test_a_hook_set_on_the_class_before_any_build_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The twin: the same class, patched before its first build, runs the hook (the test
    above fails only through what the bridge kept from the first build)."""
    logger_class = _make_class("LoggerB")
    monkeypatch.setattr(logger_class, "wrap_model_call", _tagging_wrap, raising=False)
    patched = logger_class()
    _run(patched)
    assert patched.seen == ["before_model", "wrap_model_call"]


def test_a_hook_removed_from_the_class_after_the_first_build_stops_running() -> None:
    logger_class = _make_class("LoggerC")
    logger_class.wrap_model_call = _tagging_wrap  # type: ignore[attr-defined]
    first = logger_class()
    _run(first)
    assert first.seen == ["before_model", "wrap_model_call"]
    del logger_class.wrap_model_call  # type: ignore[attr-defined]
    second = logger_class()
    messages = _run(second)  # LangChain: the base class's, i.e. no wrap_model_call layer
    assert second.seen == ["before_model"]
    assert messages[-1].content == "Hello!"
