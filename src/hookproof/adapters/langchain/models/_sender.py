"""Which agent of a LangGraph run made a chat-model call, read off the call's run manager.

LangGraph gives every call the checkpoint namespace of the node it runs in: ``model:<id>``
in the main agent, ``tools:<id>|model:<id>`` in an agent a tool invoked (a subagent: the
``task`` tool of deepagents, or any tool of yours that invokes an agent), one ``tools:``
segment more per level. ``create_agent(name=...)`` (and deepagents, for every subagent)
puts the agent's name in the run's metadata as ``lc_agent_name``. Outside LangGraph, a call
the reference engine makes (LangChain middleware run on it) is its run's agent's.
"""

from __future__ import annotations

from typing import Any

from hookproof.requests import RUNNING_AGENT, Sender

__all__ = ["sender_of"]

_NAMESPACE = "langgraph_checkpoint_ns"
_AGENT_NAME = "lc_agent_name"
_TOOLS_NODE = "tools"  # the node create_agent runs tools in


def sender_of(run_manager: Any) -> Sender | None:
    """The agent whose call this is; None for a call outside any agent run (a model invoked
    directly), which no agent made."""
    metadata = getattr(run_manager, "metadata", None)
    if not isinstance(metadata, dict) or not isinstance(metadata.get(_NAMESPACE), str):
        return RUNNING_AGENT.get()
    enclosing = metadata[_NAMESPACE].split("|")[:-1]  # the last segment is the call's own node
    depth = sum(1 for segment in enclosing if segment.partition(":")[0] == _TOOLS_NODE)
    name = metadata.get(_AGENT_NAME)
    return Sender(name if isinstance(name, str) else None, depth)
