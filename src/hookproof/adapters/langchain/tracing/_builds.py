"""Instrumented builds: LangChain composes wrap hooks when ``create_agent`` builds the agent,
leaving no callbacks, so while a build is instrumented each composed wrap hook records its
enter and exit in the run's trace and each model layer notes the request it passes on."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from hookproof.adapters.langchain._notes import (
    ACTIVE_BUILDS,
    NOTED,
    TRACER,
    Build,
    Chain,
    Notes,
    passing,
    remember_origins,
)

__all__ = ["build_instrumented", "instrumented_builds"]


def _owner(handler: Any) -> Any:
    return getattr(getattr(handler, "__wrapped__", handler), "__self__", None)


def _name_of(owner: Any) -> str:
    return str(getattr(owner, "name", None) or type(owner).__name__)


def _owner_name(handler: Any) -> str | None:
    owner = _owner(handler)
    return None if owner is None else _name_of(owner)


@contextlib.contextmanager
def _first_of(chain: Chain, first: bool) -> Iterator[None]:
    """The outermost model layer of a chain starts its notes (while it runs)."""
    token = NOTED.set(Notes(chain)) if first else None
    try:
        yield
    finally:
        if token is not None:
            NOTED.reset(token)


@contextlib.contextmanager
def _recorded(tracer: Any, name: str, hook: str) -> Iterator[None]:
    """The layer's enter, then its exit or error, in the run's trace (none outside a run)."""
    if tracer is None:
        yield
        return
    tracer.recorder.record("layer", hook, "enter", name)
    try:
        yield
    except BaseException:
        tracer.recorder.record("layer", hook, "error", name)
        raise
    tracer.recorder.record("layer", hook, "exit", name)


def _traced(handler: Any, hook: str, chain: Chain, index: int) -> Any:
    """The same wrap hook, recording its enter and exit in the run's trace; a model layer
    also notes the request it passes on (``index``: its place among the chain's layers)."""
    name = _owner_name(handler)
    if name is None:  # not a middleware's bound hook: leave it exactly as it is
        return handler
    notes = hook == "wrap_model_call"

    def traced(request: Any, inner: Any) -> Any:
        with _first_of(chain, notes and index == 0):
            passed_on = _noting(name, request, inner) if notes else inner
            tracer = TRACER.get()
            if tracer is not None and tracer.probe is not None:
                tracer.probe.reached(f"{name}.{hook}")
            with _recorded(tracer, name, hook):
                return handler(request, passed_on)

    return traced


def _atraced(handler: Any, hook: str, chain: Chain, index: int) -> Any:
    """``_traced`` for an async wrap hook (``ainvoke`` composes the async ones)."""
    name = _owner_name(handler)
    if name is None:
        return handler
    notes = hook == "wrap_model_call"

    async def traced(request: Any, inner: Any) -> Any:
        with _first_of(chain, notes and index == 0):
            passed_on = _anoting(name, request, inner) if notes else inner
            tracer = TRACER.get()
            if tracer is not None and tracer.probe is not None:
                await tracer.probe.areached(f"{name}.{hook}")
            with _recorded(tracer, name, hook):
                return await handler(request, passed_on)

    return traced


def _noting(owner: str, received: Any, inner: Any) -> Any:
    def handler(passed: Any) -> Any:
        with passing(owner, received, passed):
            return inner(passed)

    return handler


def _anoting(owner: str, received: Any, inner: Any) -> Any:
    async def handler(passed: Any) -> Any:
        with passing(owner, received, passed):
            return await inner(passed)

    return handler


def _instrumented(compose: Any, hook: str, origins: dict[str, str], wrap: Any) -> Any:
    def compose_traced(handlers: Sequence[Any]) -> Any:
        _add_origins(origins, handlers)
        owned = [handler for handler in handlers if _owner(handler) is not None]
        chain = Chain(origins, len(owned))
        indexes = {id(handler): index for index, handler in enumerate(owned)}
        return compose([wrap(item, hook, chain, indexes.get(id(item), -1)) for item in handlers])

    return compose_traced


# -- who registered which tool: read while create_agent builds -----------------------------


def _build_of(caller: Any, tools: Sequence[Any]) -> Build | None:
    """The build ``create_agent`` (the ``caller`` frame) is making, or None elsewhere."""
    if caller is None or caller.f_code.co_name != "create_agent":
        return None
    own: dict[str, str] = {}
    _add_middleware_of(own, caller)
    names = frozenset(str(getattr(item, "name", item)) for item in tools)
    return Build(names, own, _has_model_layers(caller.f_locals.get("middleware")))


def _has_model_layers(middleware: Any) -> bool:
    """Whether any middleware has a model-call wrap hook (as create_agent decides it)."""
    from langchain.agents.middleware import AgentMiddleware

    if not isinstance(middleware, Sequence):
        return True  # unknown: never guessed to have none
    return any(
        type(item).wrap_model_call is not AgentMiddleware.wrap_model_call
        or type(item).awrap_model_call is not AgentMiddleware.awrap_model_call
        for item in middleware
    )


def _add_origins(origins: dict[str, str], handlers: Sequence[Any]) -> None:
    for handler in handlers:
        owner = _owner(handler)
        if owner is not None:
            _add_tools_of(origins, owner)


def _add_tools_of(origins: dict[str, str], middleware: Any) -> None:
    """A middleware's own tools (its ``tools``), registered by it."""
    for item in getattr(middleware, "tools", None) or ():
        name = item.get("name") if isinstance(item, Mapping) else getattr(item, "name", None)
        if name is not None:
            origins.setdefault(str(name), _name_of(middleware))


def _add_middleware_of(origins: dict[str, str], caller: Any) -> None:
    """The tools of every middleware ``create_agent`` was given, read from its ``middleware``
    argument while it builds its tool node: a middleware with tools and no wrap hook composes
    nothing the patches see."""
    if caller is None or caller.f_code.co_name != "create_agent":
        return
    given = caller.f_locals.get("middleware")
    if isinstance(given, Sequence):
        for middleware in given:
            _add_tools_of(origins, middleware)


# -- the patches ---------------------------------------------------------------------------

# Builds that patch the factory's module globals take turns; the lock is re-entrant so that a
# build_instrumented inside instrumented_builds() (a contract run in a plugin test) works.
_PATCH_LOCK = threading.RLock()

_COMPOSERS = (
    ("_chain_model_call_handlers", "wrap_model_call", _traced),
    ("_chain_async_model_call_handlers", "wrap_model_call", _atraced),
    ("_chain_tool_call_wrappers", "wrap_tool_call", _traced),
    ("_chain_async_tool_call_wrappers", "wrap_tool_call", _atraced),
)


@contextlib.contextmanager
def instrumented_builds(
    tool_lists: list[list[str]] | None = None,
) -> Iterator[dict[str, str] | None]:
    """While it lasts, every LangChain ``create_agent`` builds its wrap hooks instrumented
    (see ``build_instrumented``); yields the tool origins found, or None on a LangChain
    version without the internals it patches (agents are then built as they are)."""
    from unittest import mock

    try:
        from langchain.agents import factory
    except ImportError:
        yield None
        return
    origins: dict[str, str] = {}  # every wrap hook owner's tools, for provenance
    stack = contextlib.ExitStack()
    builds: list[Build] = []
    with _PATCH_LOCK:
        for name, hook, wrap in _COMPOSERS:
            if callable(getattr(factory, name, None)):
                traced = _instrumented(getattr(factory, name), hook, origins, wrap)
                stack.enter_context(mock.patch.object(factory, name, traced))
        tool_node = getattr(factory, "ToolNode", None)  # LangChain's internal, where present
        if callable(tool_node):  # the class, or an enclosing instrumentation's recorder
            recording = _recording_tool_node(tool_node, tool_lists, origins, builds)
            stack.enter_context(mock.patch.object(factory, "ToolNode", recording))
    key = id(builds)
    ACTIVE_BUILDS[key] = builds
    try:
        yield origins
    finally:
        del ACTIVE_BUILDS[key]
        with _PATCH_LOCK:  # the patches are undone under the lock too
            stack.close()


def build_instrumented(build: Any, argument: Any, tool_lists: list[list[str]] | None = None) -> Any:
    """Call the user's factory with LangChain's wrap-hook composition instrumented, so runs of
    the agent it builds record their wrap layers; with ``tool_lists``, the names of the
    tools each agent it builds registers (before LangChain keeps one per name) are appended
    there. Its model calls' FinalRequests carry provenance (see ``noted``). Behaviour is
    unchanged; on a LangChain version without these internals, the agent is built as is
    (node hooks are still traced, and requests carry no provenance)."""
    with _PATCH_LOCK, instrumented_builds(tool_lists) as origins:
        agent = build(argument)
    if origins is not None:
        remember_origins(agent, origins)
    return agent


def _recording_tool_node(
    tool_node: Any,
    tool_lists: list[list[str]] | None,
    origins: dict[str, str],
    builds: list[Build],
) -> Any:
    def recorded(*args: Any, **kwargs: Any) -> Any:
        tools = kwargs.get("tools", args[0] if args else ())
        if tool_lists is not None:
            tool_lists.append([str(getattr(item, "name", item)) for item in tools])
        caller = sys._getframe(1)
        _add_middleware_of(origins, caller)
        build = _build_of(caller, tools)
        if build is not None:
            builds.append(build)
        return tool_node(*args, **kwargs)

    return recorded
