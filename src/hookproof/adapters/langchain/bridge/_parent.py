"""A ``Command(graph=Command.PARENT)`` from an agent that runs as a node of a LangGraph graph.

LangGraph runs a compiled ``create_agent`` graph added as a node (or invoked inside one) as a
subgraph: a hook or tool of it that returns ``Command(graph=Command.PARENT, goto=...)``
raises ``ParentCommand``, addressed to the namespace of the node that runs the agent, and
that node's graph applies the update and follows the goto (a multi-agent handoff). The
reference-engine agent does the same when it runs inside a LangGraph task; at the top level
there is no graph above it, and inside another reference-engine run the engine has no graph
either: there hookproof's ParentCommandError stands.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from langchain_core.runnables.config import var_child_runnable_config
from langgraph._internal._constants import CONFIG_KEY_CHECKPOINT_NS
from langgraph.errors import ParentCommand

from hookproof.adapters.langchain.bridge._call import LangChainCall
from hookproof.adapters.langchain.bridge._commands import lc_command
from hookproof.adapters.langchain.bridge._graph_run import current_graph_run
from hookproof.errors import ParentCommandError

__all__ = ["parent_command"]


def parent_command(error: ParentCommandError, call: LangChainCall) -> ParentCommand | None:
    """LangGraph's ``ParentCommand`` for ``error``'s Command, addressed to the graph running
    the agent (None when ``call`` does not run inside a LangGraph task)."""
    namespace = _calling_namespace(call.config)
    if namespace is None or error.command is None or current_graph_run() is not None:
        return None  # at the top level, or run by a tool of another reference-engine run
    command = lc_command(error.command)
    update = error.command.update
    if isinstance(update, Mapping):  # the parent's reducers may set a message's id in place
        messages = update.get("messages", ())
        listed = messages if isinstance(messages, list | tuple) else [messages]
        update = call.langchain_values({**update, "messages": listed} if messages else update)
    return ParentCommand(replace(command, update=update, graph=namespace))


def _calling_namespace(config: Mapping[str, Any]) -> str | None:
    """The checkpoint namespace of the LangGraph task the agent runs in: its config's, else
    (invoked without one inside a node) the task's own config LangChain keeps for the call."""
    for source in (config, var_child_runnable_config.get() or {}):
        namespace = (source.get("configurable") or {}).get(CONFIG_KEY_CHECKPOINT_NS)
        if isinstance(namespace, str) and namespace:
            return namespace
    return None
