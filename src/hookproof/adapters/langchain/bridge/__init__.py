"""LangChain on hookproof's reference engine: middleware, tools and chat models unchanged.

``BRIDGE`` is what the runtime hands each LangChain object it meets (the target registry
names it for the ``langchain`` framework); ``on_reference_engine(build)`` runs a factory
written for LangChain's ``create_agent`` on the reference engine.

``BRIDGE`` loads on first use: it needs ``langchain.agents``, which importing
``hookproof.adapters.langchain`` (the chat models) does not import.
"""

from __future__ import annotations

from typing import Any

from hookproof.adapters.langchain.bridge._on_reference import on_reference_engine
from hookproof.adapters.langchain.bridge._shaped import LangChainShapedAgent

__all__ = ["BRIDGE", "LangChainShapedAgent", "on_reference_engine"]


def __getattr__(name: str) -> Any:
    if name == "BRIDGE":  # langchain.agents, only once a LangChain object meets the runtime
        from hookproof.adapters.langchain.bridge._bridge import BRIDGE

        return BRIDGE
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
