"""LangGraph's channel read and send, for the LangChain code the reference engine runs.

Inside a LangGraph node, the config's ``configurable`` holds the running task's ``read``
(a state key's value at the start of the step; with ``fresh=True``, with the task's own
writes so far applied) and ``send`` (writes the task makes besides what it returns, applied
when the node ends). deepagents' default ``StateBackend`` reads and writes the ``files`` key
through them from its tools and hooks, so a deep agent's files live in the agent's state.

Here ``node_channels(state)`` stands for them while the engine runs one bridged hook or tool;
what was sent joins what the hook or tool returns (``joined_update``, ``joined_result``)
and reaches the state through the engine's reducers, as LangGraph's channel writes do.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from langgraph._internal._constants import CONFIG_KEY_READ, CONFIG_KEY_SEND

from hookproof.adapters.langchain.bridge._views import lc_state
from hookproof.requests import Command, ExtendedModelResponse, ModelResponse

__all__ = [
    "NodeChannels",
    "channel_functions",
    "close_channels",
    "joined_result",
    "joined_update",
    "node_channels",
    "open_channels",
]


def _folded(current: Any, written: Any) -> Any:
    """Several writes of a key in one node, as one: a dict write merges into a dict (what
    a merging reducer such as deepagents' files reducer makes of them in turn); any other
    value replaces the one before."""
    if isinstance(current, Mapping) and isinstance(written, Mapping):
        return {**current, **written}
    return written


class NodeChannels:
    """The read and send of one node's task over the state the engine gave it."""

    def __init__(self, state: Mapping[str, Any]) -> None:
        self.state = state
        self.sent: dict[str, Any] = {}

    def read(self, select: str | Sequence[str], fresh: bool = False) -> Any:
        if isinstance(select, str):
            return self._value(select, fresh)
        return {key: self._value(key, fresh) for key in select}

    def _value(self, key: str, fresh: bool) -> Any:
        view = lc_state({key: self.state[key]}) if key in self.state else {}
        current = view.get(key)
        if not fresh or key not in self.sent:
            return current
        return _fresh(current, self.sent[key])

    def send(self, writes: Sequence[tuple[str, Any]]) -> None:
        for key, value in writes:
            if key.startswith("__"):
                # LangGraph's own channels (interrupt() records its consumed answers under
                # __resume__): the engine keeps them itself
                continue
            self.sent[key] = _folded(self.sent[key], value) if key in self.sent else value


def _fresh(current: Any, sent: Any) -> Any:
    """A key's value with the node's writes applied: a dict write merges into the dict,
    dropping the entries it sets to None (deletions, as deepagents' files reducer reads
    them); another value replaces it."""
    if isinstance(current, Mapping) and isinstance(sent, Mapping):
        merged = {**current, **sent}
        return {key: value for key, value in merged.items() if value is not None}
    return sent


_CURRENT: contextvars.ContextVar[NodeChannels | None] = contextvars.ContextVar(
    "hookproof_node_channels", default=None
)


@contextlib.contextmanager
def node_channels(state: Mapping[str, Any]) -> Iterator[NodeChannels]:
    """The channels of the hook or tool run in the block, over its state."""
    channels, token = open_channels(state)
    try:
        yield channels
    finally:
        close_channels(token)


def open_channels(state: Mapping[str, Any]) -> tuple[NodeChannels, Any]:
    """``node_channels`` entered: the channels, and the token ``close_channels`` takes."""
    channels = NodeChannels(state)
    return channels, _CURRENT.set(channels)


def close_channels(token: Any) -> None:
    _CURRENT.reset(token)


def _nowhere(_writes: Sequence[tuple[str, Any]]) -> None:
    """The send of code run outside a hook or tool: nothing reads what it writes."""


def channel_functions() -> dict[str, Any]:
    """What LangGraph's node config holds under its read and send keys, for the running hook
    or tool (a send that goes nowhere, and no read, outside one)."""
    channels = _CURRENT.get()
    if channels is None:
        return {CONFIG_KEY_SEND: _nowhere}
    return {CONFIG_KEY_READ: channels.read, CONFIG_KEY_SEND: channels.send}


def joined_update(returned: Any, channels: NodeChannels) -> Any:
    """A hook's update with what it sent: its sends first, then what it returned (the order
    LangGraph applies a node's writes in)."""
    if not channels.sent:
        return returned
    if returned is None:
        return dict(channels.sent)
    if isinstance(returned, Mapping):
        return _joined(channels.sent, returned)
    if isinstance(returned, Command):
        return replace(returned, update=_joined(channels.sent, returned.update or {}))
    return returned  # the engine refuses it with its own message


def _joined(sent: Mapping[str, Any], returned: Mapping[str, Any]) -> dict[str, Any]:
    joined = dict(sent)
    for key, value in returned.items():
        joined[key] = _folded(joined[key], value) if key in joined else value
    return joined


def joined_result(result: Any, channels: NodeChannels) -> Any:
    """A tool's or a wrap hook's result with what it sent: a tool message becomes a Command
    writing both, a model response an extended one whose Command writes the sends."""
    if not channels.sent:
        return result
    if isinstance(result, Command):
        return joined_update(result, channels)
    if isinstance(result, ModelResponse):
        return ExtendedModelResponse(result, Command(update=dict(channels.sent)))
    if isinstance(result, ExtendedModelResponse):
        command = result.command or Command()
        return replace(result, command=joined_update(command, channels))
    return Command(update={**channels.sent, "messages": [result]})
