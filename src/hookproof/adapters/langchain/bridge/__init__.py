"""LangChain on hookproof's reference engine: middleware, tools and chat models unchanged.

``BRIDGE`` is what the runtime hands each LangChain object it meets (the target registry
names it for the ``langchain`` framework); ``on_reference_engine(build)`` runs a factory
written for LangChain's ``create_agent`` on the reference engine.
"""

from hookproof.adapters.langchain.bridge._bridge import BRIDGE
from hookproof.adapters.langchain.bridge._on_reference import on_reference_engine

__all__ = ["BRIDGE", "on_reference_engine"]
