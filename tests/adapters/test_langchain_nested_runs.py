"""An agent invoked from inside another agent's tool (a subagent) on the reference engine
against LangChain: it starts from the tool's run config as LangGraph's ``ensure_config`` makes
it (the parent's tags, metadata and callbacks under its own bound config) and runs with the
parent's context and store when it is given none."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.tools import ToolRuntime
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langgraph.store.memory import InMemoryStore

from hookproof.adapters.langchain import ScriptedChatModel, on_reference_engine
from hookproof.models import call

_SEEN: list[ToolRuntime] = []


@tool
def look(runtime: ToolRuntime) -> str:
    """Note what the tool is given."""
    _SEEN.append(runtime)
    return "looked"


def _build(inner_config: dict[str, Any] | None = None, **outer_options: Any) -> Any:
    """An outer agent whose tool invokes an inner agent (bound to ``inner_config``) that
    calls ``look``; both built with LangChain's ``create_agent`` (on either engine)."""
    inner = langchain_create_agent(
        ScriptedChatModel([call("look", {}, id="c2"), "inner done"]), [look], name="inner"
    ).with_config(inner_config or {})

    @tool
    def delegate(question: str) -> str:
        """Ask the inner agent."""
        answer = inner.invoke({"messages": [HumanMessage(question)]})
        return str(answer["messages"][-1].text)

    outer = ScriptedChatModel([call("delegate", {"question": "why"}, id="c1"), "outer done"])
    return langchain_create_agent(outer, [delegate], name="outer", **outer_options)


def _inner_runtime(build: Any, *args: Any, **kwargs: Any) -> ToolRuntime:
    _SEEN.clear()
    build().invoke({"messages": [HumanMessage("hello")]}, *args, **kwargs)
    assert len(_SEEN) == 1
    return _SEEN[0]


def _on_both(build: Any, *args: Any, **kwargs: Any) -> tuple[ToolRuntime, ToolRuntime]:
    return _inner_runtime(build, *args, **kwargs), _inner_runtime(
        on_reference_engine(build), *args, **kwargs
    )


def test_a_subagent_runs_with_the_parents_tags_and_metadata_under_its_own_bound_config() -> None:
    def build() -> Any:
        return _build({"recursion_limit": 77, "metadata": {"lc_agent_name": "helper"}})

    config = {"tags": ["session"], "metadata": {"customer": "c-1", "lc_agent_name": "caller"}}
    for runtime in _on_both(build, config):
        assert runtime.config["tags"] == ["session"]
        assert runtime.config["recursion_limit"] == 77
        assert runtime.config["metadata"]["customer"] == "c-1"
        assert runtime.config["metadata"]["lc_agent_name"] == "helper"  # its own binding wins


def test_a_subagent_without_bound_config_keeps_its_graphs_defaults_over_the_parents() -> None:
    config = {"recursion_limit": 40, "configurable": {"user": "u-1"}}
    langchain, reference = _on_both(_build, config)
    assert reference.config["recursion_limit"] == langchain.config["recursion_limit"]
    assert reference.config["metadata"]["lc_agent_name"] == "inner"
    assert reference.config["configurable"]["user"] == "u-1"
    assert langchain.config["configurable"]["user"] == "u-1"


def test_a_subagent_given_no_context_runs_with_the_parents() -> None:
    for runtime in _on_both(_build, context={"user_id": "u-7"}):
        assert runtime.context == {"user_id": "u-7"}


def test_a_subagent_given_no_store_runs_with_the_parents() -> None:
    store = InMemoryStore()
    langchain = _inner_runtime(lambda: _build(store=store))
    reference = _inner_runtime(on_reference_engine(lambda: _build(store=store)))
    assert langchain.store is store
    assert reference.store is store
