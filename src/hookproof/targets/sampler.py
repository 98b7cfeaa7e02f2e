"""Hook sampling: how middleware checks call one middleware's hooks, the way its framework
calls them, on sample requests.

A framework's ``HookSampler`` says how its middleware's hooks are called and what they are
called on; the registry entry whose packages a middleware's classes come from gives its
sampler (``hookproof.targets.hook_sampler``). The helpers here turn hooks into plain calls.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hookproof.messages import Message, RemoveMessage, SystemMessage

__all__ = [
    "HookSampler",
    "NodeSamples",
    "PassedOn",
    "hookproof_messages",
    "node_call",
    "replaces_all",
    "sync_call",
    "written_messages",
]


def sync_call(async_hook: Callable[..., Any]) -> Callable[[Any, Callable[..., Any]], Any]:
    """An async wrap hook as a plain call: it runs on its own loop with a sync handler."""

    def run(request: Any, handler: Callable[..., Any]) -> Any:
        async def async_handler(changed: Any) -> Any:
            return handler(changed)

        return asyncio.run(async_hook(request, async_handler))

    return run


def node_call(sync: Any, async_: Any) -> Callable[[Any, Any], Any] | None:
    """A node hook as a plain call ``(state, runtime)``; an async-only one runs on its loop."""
    if callable(sync):
        return sync  # type: ignore[no-any-return]
    if callable(async_):
        return lambda state, runtime: asyncio.run(async_(state, runtime))
    return None


def written_messages(outcome: Any) -> list[Any] | None:
    """The messages a node hook's outcome writes (a dict, a Command whose update is a dict
    or a list of (key, value) pairs; one message or a list), or None."""
    update = outcome if isinstance(outcome, Mapping) else getattr(outcome, "update", None)
    if isinstance(update, list | tuple):
        update = {pair[0]: pair[1] for pair in update if isinstance(pair, tuple) and len(pair) == 2}
    written = update.get("messages") if isinstance(update, Mapping) else None
    if written is None:
        return None
    return list(written) if isinstance(written, list | tuple) else [written]


@dataclass(frozen=True)
class NodeSamples:
    """What node hooks are run on: the hook lookup, a sample state and runtime, and how to
    read the messages of a state update (as hookproof messages)."""

    hook: Callable[[object, str], Callable[[Any, Any], Any] | None]
    state: Callable[[], Any]
    runtime: Callable[[], Any]
    messages: Callable[[Sequence[Any]], list[Message]]
    replaces_all: Callable[[Sequence[Any]], bool]
    written: Callable[[Any, Any], list[Any] | None] = lambda outcome, _given: written_messages(
        outcome
    )
    state_messages: Callable[[Any], Sequence[Any]] = lambda state: state.get("messages", ())


def hookproof_messages(items: Sequence[Any]) -> list[Message]:
    return [item for item in items if isinstance(item, Message)]


def replaces_all(items: Sequence[Any]) -> bool:
    """Whether a state update removes every message before writing its own."""
    return any(isinstance(item, RemoveMessage) and item.id == RemoveMessage.ALL for item in items)


@dataclass(frozen=True)
class PassedOn:
    """What a wrap_model_call received and passed on to its handler, as hookproof messages."""

    system_before: SystemMessage
    system_after: SystemMessage | None
    messages_before: Sequence[Message]
    messages_after: Sequence[Message]


def _compare_copies(_middleware: object, _request: Any, _context: Any) -> list[str] | None:
    return None


@dataclass(frozen=True)
class HookSampler:
    """How a framework's middleware hooks are called, one at a time, on sample requests.

    ``wrap_hook(middleware, name)`` is the middleware's own wrap hook as a plain
    ``(request, handler)`` call (None when it has none); ``node_samples(context)`` what its
    node hooks run on; ``sample_model_request(context=...)`` /
    ``sample_tool_request(context=...)``
    a rich model request and a tool-call request for one sample_search call (called with
    ``tool=`` and ``args=`` too when a check is given the user's tool: a call of that tool,
    given as the framework's tool object or a name);
    ``passed_on(middleware, system_message, context)`` what its wrap_model_call passes on
    for a sample request (None: it never called its handler). ``mutation_findings(middleware,
    request, context)`` finds in-place changes the framework's own way; None (the default)
    lets the check compare deep copies of the sample requests itself."""

    wrap_hook: Callable[[object, str], Callable[[Any, Any], Any] | None]
    node_samples: Callable[[Any], NodeSamples]
    sample_model_request: Callable[..., Any]  # called with context=...
    sample_tool_request: Callable[..., Any]  # called with context=... (and tool=, args=)
    passed_on: Callable[[object, Any, Any], PassedOn | None]
    mutation_findings: Callable[[object, Any, Any], list[str] | None] = _compare_copies
