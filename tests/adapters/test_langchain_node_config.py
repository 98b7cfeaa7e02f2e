"""What ``get_config()`` returns inside a LangChain hook on an agent of the reference engine's
own ``create_agent`` (no LangChain-shaped run around it): LangChain's agent defaults, the
node's metadata and LangGraph's keys, in the order LangGraph builds them, with the thread id
where the run has one; and each task's id is the same on every run that names the task.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents.middleware import AgentMiddleware
from langgraph.config import get_config

from hookproof.models import ScriptedModel
from hookproof.runtime import InMemoryCheckpointer, create_agent

LANGGRAPH_KEYS = [
    "__pregel_runtime",
    "__pregel_task_id",
    "__pregel_read",
    "__pregel_send",
    "__pregel_scratchpad",
    "checkpoint_ns",
]


class _ConfigProbe(AgentMiddleware):  # type: ignore[type-arg]
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[dict[str, Any]] = []

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        self.seen.append(get_config())  # type: ignore[arg-type]
        return handler(request)


def _configs(thread_id: str | None, runs: int = 1) -> list[dict[str, Any]]:
    probe = _ConfigProbe()
    checkpointer = InMemoryCheckpointer() if thread_id is not None else None
    for _ in range(runs):
        agent = create_agent(
            ScriptedModel(["ok"], name="m"), [], middleware=[probe], checkpointer=checkpointer
        )
        agent.invoke({"messages": [("user", "hi")]}, thread_id=thread_id)
    return probe.seen


def _namespace(config: dict[str, Any]) -> str:
    return f"model:{config['configurable']['__pregel_task_id']}"


def test_a_hook_without_a_thread_sees_the_agent_defaults_and_the_node() -> None:
    (config,) = _configs(None)

    assert list(config) == ["tags", "callbacks", "recursion_limit", "metadata", "configurable"]
    assert (config["tags"], config["callbacks"], config["recursion_limit"]) == ([], None, 9_999)
    assert config["metadata"] == {
        "ls_integration": "langchain_create_agent",
        "langgraph_node": "model",
        "langgraph_checkpoint_ns": _namespace(config),
    }
    assert list(config["configurable"]) == LANGGRAPH_KEYS
    assert config["configurable"]["checkpoint_ns"] == _namespace(config)


def test_a_hook_of_a_thread_sees_its_thread_id_first() -> None:
    (config,) = _configs("t-1")

    assert list(config["metadata"]) == [
        "ls_integration",
        "thread_id",
        "langgraph_node",
        "langgraph_checkpoint_ns",
    ]
    assert config["metadata"]["thread_id"] == "t-1"
    assert list(config["configurable"]) == ["thread_id", *LANGGRAPH_KEYS]
    assert config["configurable"]["thread_id"] == "t-1"


def test_a_task_has_one_uuid_shaped_id_on_every_run() -> None:
    first, second = _configs(None, runs=2)
    other_thread = _configs("t-2")[0]

    task_id = first["configurable"]["__pregel_task_id"]
    assert [len(part) for part in task_id.split("-")] == [8, 4, 4, 4, 12]
    assert second["configurable"]["__pregel_task_id"] == task_id
    assert other_thread["configurable"]["__pregel_task_id"] != task_id
