"""Middleware, tools and chat models written for another framework, run on the reference
runtime through that framework's bridge.

A bridge is named by the framework's entry in ``hookproof._frameworks`` (the one list of
frameworks), found by the packages of an object's classes and imported on first sight of
one of its objects, so hookproof's own objects never import a framework. The bridge translates
once, when the agent is built (middleware, tools) or when the model is called (chat models):
afterwards the engine sees only hookproof-shaped objects.
"""

from __future__ import annotations

import contextlib
from operator import attrgetter
from typing import Any, Protocol

from hookproof._engine import add_messages
from hookproof._frameworks import bridge_of
from hookproof._support.history import History
from hookproof.errors import UsageError, safe_repr
from hookproof.messages import Message, coerce_message, construct
from hookproof.tools import Tool

__all__ = [
    "Bridge",
    "bridge_for",
    "identified_messages",
    "native_checkpointer",
    "native_message",
    "native_middleware",
    "native_model",
    "native_structured_output",
    "native_tool",
]


class Bridge(Protocol):
    def middleware(self, middleware: object) -> object:
        """An object with hookproof-shaped hooks that run ``middleware``'s hooks."""

    def tool(self, tool: object, source: str) -> Tool:
        """A hookproof Tool that shows ``tool``'s schema and executes it."""

    def model(self, model: object) -> Any:
        """An object with ``invoke(FinalRequest)`` (and ``ainvoke``) that calls ``model``."""

    def message(self, message: object) -> Any:
        """The hookproof message for one of the framework's messages."""

    def checkpointer(self, checkpointer: object) -> Any:
        """The runtime's checkpointer standing for the framework's (or a clear error)."""

    def structured_output(self, response_format: object) -> Any:
        """The runtime's StructuredOutput for the framework's ``response_format`` (None: an
        agent that declared none, whose middleware sets one on a request)."""


def bridge_for(value: object) -> Bridge | None:
    """The bridge that runs ``value``, or None for anything that is not a framework's."""
    return bridge_of(type(value))  # type: ignore[return-value]


def native_middleware(middleware: object) -> object:
    bridge = bridge_for(middleware)
    return middleware if bridge is None else bridge.middleware(middleware)


def native_tool(tool: object, source: str) -> object:
    bridge = bridge_for(tool)
    return tool if bridge is None else bridge.tool(tool, source)


def native_message(message: object) -> Any:
    bridge = bridge_for(message)
    return message if bridge is None else bridge.message(message)


def native_checkpointer(checkpointer: object) -> Any:
    bridge = bridge_for(checkpointer)
    native = checkpointer if bridge is None else bridge.checkpointer(checkpointer)
    if native is not None and not all(
        callable(getattr(native, method, None)) for method in ("get", "put")
    ):
        raise UsageError(
            f"hookproof: checkpointer={safe_repr(checkpointer, 80)} is not a checkpointer: it "
            "needs get(thread_id) and put(thread_id, checkpoint). Pass "
            "hookproof.runtime.InMemoryCheckpointer() or LangGraph's InMemorySaver()."
        )
    return native


def native_structured_output(initial: object, response_format: object, model: object) -> Any:
    """The StructuredOutput (see runtime._structured) of ``initial``, the agent's own format,
    from the bridge of ``response_format``'s framework or else of the model's; None when
    neither has a bridge."""
    bridge = bridge_for(response_format) or bridge_for(model)
    return None if bridge is None else bridge.structured_output(initial)


def native_model(model: object) -> Any:
    bridge = bridge_for(model)
    return model if bridge is None else bridge.model(model)


def identified_messages(current: Any, new: Any) -> Any:
    """The messages reducer of an agent with a framework's middleware: as ``add_messages``,
    and a message without an id gets one (``m1``, ``m2``, ... by its place in the history,
    skipping ids in use). LangChain gives every message an id, and its middleware replaces a
    message by returning one with the same id; deterministic ids keep that working without
    LangChain's random ones."""
    items = list(new) if isinstance(new, (list, tuple)) else [new]
    current = current or ()
    if len(current) + len(items) < _KEPT_FROM:
        numbered = _numbered(current, items)
        if numbered is not None:  # appended, as add_messages would: ids new to both
            start = current if type(current) is History else History(current)
            return start.extended(numbered)
    long = len(current) >= _KEPT_FROM
    if all(getattr(item, "id", None) is not None for item in items):
        result = add_messages(current, new)
        kept = _taken_ids(current) if long else None
        if kept is not None:
            _keep_ids(result, current, items, kept)
        return result
    known = _taken_ids(current) if long else None
    if known is None:
        known = {message.id for message in current}
    taken = {getattr(item, "id", None) for item in items}
    number = len(current)
    named: list[Any] = []
    all_named_here = True
    for index, item in enumerate(items):
        message = (
            item
            if isinstance(item, Message)
            else coerce_message(item, where=f"messages update [{index}]")
        )
        if isinstance(message, Message) and message.id is None:
            number += 1
            while f"m{number}" in known or f"m{number}" in taken:
                number += 1
            message = _with_id(message, f"m{number}")
            taken.add(message.id)
        else:
            all_named_here = False
        named.append(message)
    result = _appended(current, named) if all_named_here else add_messages(current, named)
    if len(result) >= _KEPT_FROM:
        _keep_ids(result, current, named, known)
    return result


def _numbered(current: Any, items: list[Any]) -> list[Any] | None:
    """``items`` with the ids the general path gives them, when each is a hookproof message
    without an id (a step's own new messages, the common update); else None."""
    known: set[Any] | None = None
    number = len(current)
    named: list[Any] = []
    for item in items:
        if not isinstance(item, Message) or item.id is not None:
            return None
        if known is None:
            known = set(map(_ID, current))
        number += 1
        key = f"m{number}"
        while key in known:
            number += 1
            key = f"m{number}"
        named.append(_with_id(item, key))
    return named


_ID = attrgetter("id")


# add_messages keeps an index by id for histories this long; a shorter one has none.
_INDEXED_FROM = 256


def _appended(current: Any, named: list[Any]) -> Any:
    """``add_messages(current, named)`` for messages with ids new to ``current`` and to each
    other: they are appended, with no lookup by id (a long history goes through
    add_messages, which carries its index by id over)."""
    if len(current) + len(named) >= _INDEXED_FROM:
        return add_messages(current, named)
    start = current if type(current) is History else History(current)
    return start.extended(named)


# The ids of the newest history this reducer made, as (history, ids): a run's next update
# starts from that history, so its ids are not collected again from every message. One
# slot, emptied by the update that takes it (which then changes the set).
_last_ids: list[tuple[Any, set[Any]]] = []
# A shorter history's ids are collected afresh: cheaper than keeping them.
_KEPT_FROM = 32


def _taken_ids(current: Any) -> set[Any] | None:
    """The kept ids of ``current``, if they are (a set the caller may then change)."""
    kept = _last_ids[:]
    if kept and kept[0][0] is current:
        with contextlib.suppress(ValueError):  # another thread took it first
            _last_ids.remove(kept[0])
            return kept[0][1]
    return None


def _keep_ids(result: Any, current: Any, named: list[Any], known: set[Any]) -> None:
    """Keep the ids of ``result`` when it is ``current`` followed by ``named`` (nothing
    replaced or removed), as every step's own messages are added."""
    appended = type(result) is History and len(result) == len(current) + len(named)
    if appended and (not current or result.shares_prefix(current)):
        known.update(message.id for message in named)
        _last_ids[:] = [(result, known)]


def _with_id(message: Message, key: str) -> Message:
    """``message`` with an id; its other values are already valid, so none is checked again."""
    return construct(type(message), **{**message.__dict__, "id": key})
