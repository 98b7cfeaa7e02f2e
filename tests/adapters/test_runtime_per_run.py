"""Every run has a Runtime of its own, as every LangGraph invoke has: what is filed under a
Runtime's identity (the bridge's LangChain runtime view, with the run's store) never reaches
another run, even of another agent with the same name (unnamed LangChain agents share one)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langgraph.store.memory import InMemoryStore

from hookproof.adapters.langchain import ScriptedChatModel, on_reference_engine
from hookproof.models import ScriptedModel
from hookproof.runtime import AgentMiddleware as HookproofMiddleware
from hookproof.runtime import create_agent as hookproof_agent


class SeesStore(AgentMiddleware):
    def __init__(self) -> None:
        super().__init__()
        self.stores: list[Any] = []

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        self.stores.append(request.runtime.store)
        return handler(request)


def _store_seen(store: InMemoryStore, context: Any = None) -> Any:
    middleware = SeesStore()

    def build(model: Any) -> Any:
        return create_agent(model, [], middleware=[middleware], store=store)

    agent = on_reference_engine(build)(ScriptedChatModel(["Hello!"]))
    agent.invoke({"messages": [("user", "hi")]}, context=context)
    return middleware.stores[0]


def test_each_agents_hooks_see_its_own_store() -> None:
    first, second = InMemoryStore(), InMemoryStore()
    assert _store_seen(first) is first
    assert _store_seen(second) is second  # the branch: ``first``, the other agent's


def test_each_agents_hooks_see_its_own_store_given_a_context() -> None:
    """The twin: runs given a context get a Runtime of their own on the branch too, and
    each agent's hooks see its own store."""
    first, second = InMemoryStore(), InMemoryStore()
    assert _store_seen(first, {"user": "u1"}) is first
    assert _store_seen(second, {"user": "u1"}) is second


def test_each_run_has_a_runtime_of_its_own() -> None:
    """A middleware that tells one run from the next by its Runtime (per-run budgets kept
    by identity) sees every run as the same run."""
    seen: list[Any] = []

    class Notes(HookproofMiddleware):
        def before_model(self, state: Any, runtime: Any) -> None:
            seen.append(runtime)

    agent = hookproof_agent(ScriptedModel(["a", "b"]), [], middleware=[Notes()])
    agent.invoke({"messages": [("user", "hi")]})
    agent.invoke({"messages": [("user", "hi")]})
    assert seen[0] == seen[1]
    assert seen[0] is not seen[1]
