"""Review of wt-bridge-s13: the LangChain bridge reads the hooks a middleware class defines
once per class. A hook set on the class (or on a base) after the first build, as
``monkeypatch.setattr`` does in a test, is what LangChain's ``create_agent`` runs from then
on; on main the bridge ran it too, so the reference engine ran what LangChain runs."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware

from hookproof.adapters.langchain import ScriptedChatModel, on_reference_engine

try:  # wt-bridge-s13 is in: a middleware class's hooks are read once
    from hookproof.adapters.langchain.bridge import _bridge

    HOOKS_READ_ONCE = hasattr(_bridge, "_CLASS_HOOKS")
except ImportError:  # pragma: no cover - the bridge moved
    HOOKS_READ_ONCE = False

read_once_defect = pytest.mark.xfail(
    HOOKS_READ_ONCE,
    strict=True,
    reason="review-s13: the bridge keeps a class's hook list from its first build, so a hook "
    "set on the class later never runs on the reference engine (LangChain runs it)",
)


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


@read_once_defect
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


@read_once_defect
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
