"""LangChain's ``create_agent`` standing in as the reference engine's while a check's
factory builds and runs (``reference_engine_scope``), so deepagents' main agent and the
subagents it builds are reference-engine agents too: how ``BridgedTarget`` runs an app.

The stand-in is scoped: every module attribute, and the factory's own globals and closure
cells, holding LangChain's ``create_agent`` point to the reference engine's inside
``reference_engine_scope`` and back to LangChain's on leaving it. The scope holds a lock, so
two threads never swap at once; a thread that builds LangChain agents of its own while
another thread is inside the scope gets the reference engine too, so do not mix the two in
threads at once.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from hookproof.adapters.langchain.bridge import on_reference_engine

__all__ = ["reference_engine_scope"]

_LOCK = threading.RLock()
# (len(sys.modules), last module loaded) -> the (module, name) pairs found then
_BINDINGS: dict[tuple[int, str | None], list[tuple[str, str]]] = {}


def _langchain_create_agent() -> Any:
    import langchain.agents.factory

    return langchain.agents.factory.create_agent


def _build_on_langchain(*args: Any, **kwargs: Any) -> Any:
    # Looked up at call time: on_reference_engine points langchain.agents' name at the
    # reference engine while it builds.
    import langchain.agents

    return langchain.agents.create_agent(*args, **kwargs)


_ON_REFERENCE = on_reference_engine(_build_on_langchain)


def _module_bindings(genuine: Any) -> list[tuple[str, str]]:
    """(module, attribute) of every loaded module holding ``genuine``; swept again only when
    modules were loaded since (the bindings found are checked again at every swap). The key
    holds the last module loaded too: one unloaded and another loaded keep the count."""
    modules = sys.modules
    key = (len(modules), next(reversed(modules), None))
    if key not in _BINDINGS:
        _BINDINGS.clear()
        _BINDINGS[key] = [
            (module_name, name)
            for module_name, module in list(sys.modules.items())
            for name, value in list(getattr(module, "__dict__", {}).items())
            if value is genuine
        ]
    return _BINDINGS[key]


def _namespaces(build: Callable[..., Any], genuine: Any) -> list[tuple[Any, str]]:
    found = [
        (vars(module), name)
        for module_name, name in _module_bindings(genuine)
        if (module := sys.modules.get(module_name)) is not None
        and vars(module).get(name) is genuine
    ]
    own = getattr(build, "__globals__", {})
    return found + [(own, key) for key, value in own.items() if value is genuine]


def _cells(build: Callable[..., Any], genuine: Any) -> list[Any]:
    cells = getattr(build, "__closure__", None) or ()
    return [cell for cell in cells if _holds(cell, genuine)]


def _holds(cell: Any, value: Any) -> bool:
    try:
        return cell.cell_contents is value
    except ValueError:  # an empty cell
        return False


@contextmanager
def reference_engine_scope(build: Callable[..., Any]) -> Iterator[None]:
    """While inside, LangChain's ``create_agent`` builds reference-engine agents wherever
    ``build`` (or deepagents, or any loaded module) reaches it; restored on leaving."""
    with _LOCK:
        genuine = _langchain_create_agent()
        if genuine is _ON_REFERENCE:  # already inside a scope
            yield
            return
        # The stand-in says what it wraps, so the bridge finds LangChain's own create_agent
        # behind it even when it first looks for it inside the scope.
        setattr(_build_on_langchain, "__wrapped__", genuine)  # noqa: B010
        namespaces, cells = _namespaces(build, genuine), _cells(build, genuine)
        for namespace, key in namespaces:
            namespace[key] = _ON_REFERENCE
        for cell in cells:
            cell.cell_contents = _ON_REFERENCE
        try:
            yield
        finally:
            for namespace, key in namespaces:
                namespace[key] = genuine
            for cell in cells:
                cell.cell_contents = genuine
