"""LangChain chat models for tests: scripted replies, recorded final requests.

``ScriptedChatModel`` is a real ``BaseChatModel``: ``bind_tools`` keeps the full tool schemas,
tool_choice and settings, and every call sees a hookproof ``FinalRequest`` built from exactly
what LangChain passed in. It plays the same turns as ``hookproof.models.ScriptedModel``
(``call(...)``, str, lists of calls, exceptions, a function). ``RecordingChatModel`` wraps any
chat model and records those FinalRequests, so snapshots, diffs and contracts work unchanged
on ``langchain.agents.create_agent`` and deepagents. ``run(agent, input)`` runs such an agent
once as hookproof's ``RunResult``. ``on_reference_engine(build)`` runs a factory written for
LangChain's ``create_agent`` on hookproof's reference engine, with its LangChain middleware
and tools unchanged; the agent it builds, a ``LangChainShapedAgent``, is called as LangChain's
(``invoke(input, config, context=...)`` returns the state dict) and ``.run(...)`` returns
hookproof's ``RunResult``.

By role: ``models`` (the chat models), ``tracing`` (a run's trace and its requests'
provenance, ``build_instrumented``), ``bridge`` (LangChain objects on the reference engine)
and ``target`` (``LangChainTarget``, how the contract checks run such agents, registered as
the ``langchain`` target).

Importing this package imports langchain-core (install ``hookproof[langchain]``).
"""

from __future__ import annotations

# First, so a missing langchain-core fails here even when the submodules are already loaded.
import langchain_core  # noqa: F401

from hookproof.adapters.langchain._convert import final_request
from hookproof.adapters.langchain._run import run
from hookproof.adapters.langchain.bridge import LangChainShapedAgent, on_reference_engine
from hookproof.adapters.langchain.models import RecordingChatModel, ScriptedChatModel

__all__ = [
    "LangChainShapedAgent",
    "RecordingChatModel",
    "ScriptedChatModel",
    "final_request",
    "on_reference_engine",
    "run",
]
