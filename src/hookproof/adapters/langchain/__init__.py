"""LangChain chat models for tests: scripted replies, recorded final requests.

``ScriptedChatModel`` is a real ``BaseChatModel``: ``bind_tools`` keeps the full tool schemas,
tool_choice and settings, and every call sees a hookproof ``FinalRequest`` built from exactly
what LangChain passed in. It plays the same turns as ``hookproof.models.ScriptedModel``
(``call(...)``, str, lists of calls, exceptions, a function). ``RecordingChatModel`` wraps any
chat model and records those FinalRequests, so snapshots, diffs and contracts work unchanged
on ``langchain.agents.create_agent`` and deepagents. ``LangChainTarget`` is how the contract
checks run such agents (registered as the ``langchain`` target). ``on_reference_engine(build)``
runs a factory written for LangChain's ``create_agent`` on hookproof's reference engine, with
its LangChain middleware and tools unchanged.

Importing this package imports langchain-core (install ``hookproof[langchain]``).
"""

from __future__ import annotations

# First, so a missing langchain-core fails here even when the submodules are already loaded.
import langchain_core  # noqa: F401

from hookproof.adapters.langchain._convert import final_request, portable_kwargs
from hookproof.adapters.langchain._models import (
    FalsyRecordingChatModel,
    RecordingChatModel,
    ScriptedChatModel,
    models_for,
)
from hookproof.adapters.langchain._on_reference import on_reference_engine
from hookproof.adapters.langchain._run import run, run_agent, run_config
from hookproof.adapters.langchain._samples import (
    model_reply,
    mutation_findings,
    node_hook,
    node_samples,
    overridden,
    passed_on,
    sample_messages,
    sample_model_request,
    sample_state,
    sample_system_message,
    sample_tool_call_request,
)
from hookproof.adapters.langchain._target import LangChainTarget, graph_tool_schemas
from hookproof.adapters.langchain._tracing import (
    TraceHandler,
    build_instrumented,
    instrumented_builds,
)

__all__ = [
    "RecordingChatModel",
    "ScriptedChatModel",
    "final_request",
    "on_reference_engine",
    "run",
]

# Also importable from here, as before the split (used by targets and tests, not documented).
__all__ += [
    "FalsyRecordingChatModel",
    "LangChainTarget",
    "TraceHandler",
    "build_instrumented",
    "graph_tool_schemas",
    "instrumented_builds",
    "is_langchain_object",
    "model_reply",
    "models_for",
    "mutation_findings",
    "node_hook",
    "node_samples",
    "overridden",
    "passed_on",
    "portable_kwargs",
    "run_agent",
    "run_config",
    "sample_messages",
    "sample_model_request",
    "sample_state",
    "sample_system_message",
    "sample_tool_call_request",
]


def is_langchain_object(value: object) -> bool:
    """True for LangChain / LangGraph agents and middleware (checked by their module)."""
    return any(
        getattr(cls, "__module__", "").startswith(("langchain", "langgraph"))
        for cls in type(value).__mro__
    )
