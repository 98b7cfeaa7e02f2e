"""Commands between LangGraph's type (what LangChain hooks and tools return and receive) and
hookproof's."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from langgraph.types import Command as LCCommand

from hookproof.adapters.langchain.bridge._views import hp_update, lc_message
from hookproof.messages import Message
from hookproof.requests import NO_RESUME, Command

__all__ = ["hp_command", "hp_model_command", "lc_command"]


# LangGraph adds a Command's goto to the node's own edges, and create_agent's nodes always
# lead on: a goto END from a tool or a hook does not stop the run there, so it is dropped.
_GOTO: dict[str, str | None] = {"__end__": None}
_TAKES_GRAPH = "graph" in {item.name for item in fields(Command)}


def hp_command(command: Any, where: str) -> Command:
    goto = command.goto
    if isinstance(goto, str):
        goto = _GOTO.get(goto, goto)
    return _converted(command, goto, where)


def hp_model_command(command: Any) -> Command:
    """The Command of a wrap_model_call's ExtendedModelResponse: its goto kept as given
    (END too), so the engine refuses any jump as LangChain's create_agent does."""
    goto = "end" if command.goto == "__end__" else command.goto
    return _converted(command, goto, "command")


def _converted(command: Any, goto: Any, where: str) -> Command:
    update = command.update
    if isinstance(update, dict):
        update = hp_update(update, where)
    if not goto:
        goto = None
    values: dict[str, Any] = {
        "update": update,
        "goto": goto,
        "resume": NO_RESUME if command.resume is None else command.resume,
    }
    if _TAKES_GRAPH and command.graph is not None:
        values["graph"] = command.graph
    return Command(**values)


def lc_command(command: Command) -> LCCommand[Any]:
    update = command.update
    if update is not None and "messages" in update:
        messages = update["messages"]
        items = messages if isinstance(messages, list | tuple) else [messages]
        update = {**update, "messages": [_lc_any(item) for item in items]}
    resume = None if command.resume is NO_RESUME else command.resume
    graph = getattr(command, "graph", None)
    return LCCommand(update=update, goto=command.goto or (), resume=resume, graph=graph)


def _lc_any(item: Any) -> Any:
    return lc_message(item) if isinstance(item, Message) else item
