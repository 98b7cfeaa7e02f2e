"""Interim: a LangChain-shaped agent until the call-shape helper's lands (then removed)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.messages import convert_to_messages

from hookproof.adapters.langchain.bridge._graph_run import GraphRun
from hookproof.adapters.langchain.bridge._stream_api import LangChainStreaming
from hookproof.adapters.langchain.bridge._stream_events import LangChainStreamEvents
from hookproof.adapters.langchain.bridge._views import hp_message, lc_message
from hookproof.messages import Message
from hookproof.runtime import Agent

__all__ = ["InterimShapedAgent"]


class _Call:
    def __init__(self, input: Any, config: Mapping[str, Any] | None) -> None:
        self.config = dict(config or {})
        self.thread_id = (self.config.get("configurable") or {}).get("thread_id")
        self.graph_run = GraphRun(config=self.config)
        state = dict(input)
        state["messages"] = [hp_message(m) for m in convert_to_messages(input["messages"])]
        self.engine_input = state

    @staticmethod
    def interrupts(pending: Any, thread_id: str | None) -> list[Any]:
        from langgraph.types import Interrupt

        return [Interrupt(value=item.value, id=str(index)) for index, item in enumerate(pending)]

    def output_values(self, state: Mapping[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in state.items() if k != "jump_to"}
        if "messages" in out:
            out["messages"] = [
                lc_message(m) if isinstance(m, Message) else m for m in out["messages"]
            ]
        return out


class InterimShapedAgent(LangChainStreamEvents, LangChainStreaming, Agent):
    @classmethod
    def of(cls, agent: Agent) -> InterimShapedAgent:
        return cls(agent._engine, middleware=agent.middleware, context_schema=agent.context_schema)

    def _call(self, input: Any, config: Any, options: Any) -> Any:
        return _Call(input, config)
