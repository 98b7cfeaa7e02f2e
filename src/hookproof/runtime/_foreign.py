"""Middleware, tools and chat models written for another framework, run on the reference
runtime through that framework's bridge.

A bridge is found by the modules of an object's classes and imported on first sight of one
of its objects, so hookproof's own objects never import a framework. The bridge translates
once, when the agent is built (middleware, tools) or when the model is called (chat models):
afterwards the engine sees only hookproof-shaped objects.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from hookproof.tools import Tool

__all__ = ["Bridge", "bridge_for", "native_middleware", "native_model", "native_tool"]


class Bridge(Protocol):
    def middleware(self, middleware: object) -> object:
        """An object with hookproof-shaped hooks that run ``middleware``'s hooks."""

    def tool(self, tool: object, source: str) -> Tool:
        """A hookproof Tool that shows ``tool``'s schema and executes it."""

    def model(self, model: object) -> Any:
        """An object with ``invoke(FinalRequest)`` (and ``ainvoke``) that calls ``model``."""


# module prefixes of a framework's classes -> the module whose BRIDGE runs its objects
_BRIDGES: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        ("langchain.", "langchain_core.", "langgraph.", "deepagents."),
        "hookproof.adapters.langchain._bridge",
    ),
)
_BY_TYPE: dict[type, Bridge | None] = {}


def bridge_for(value: object) -> Bridge | None:
    """The bridge that runs ``value``, or None for anything that is not a framework's."""
    cls = type(value)
    try:
        return _BY_TYPE[cls]
    except KeyError:
        pass
    modules = [getattr(item, "__module__", None) or "" for item in cls.__mro__]
    found: Bridge | None = None
    for prefixes, module in _BRIDGES:
        if any(name.startswith(prefixes) for name in modules):
            found = importlib.import_module(module).BRIDGE
            break
    _BY_TYPE[cls] = found
    return found


def native_middleware(middleware: object) -> object:
    bridge = bridge_for(middleware)
    return middleware if bridge is None else bridge.middleware(middleware)


def native_tool(tool: object, source: str) -> object:
    bridge = bridge_for(tool)
    return tool if bridge is None else bridge.tool(tool, source)


def native_model(model: object) -> Any:
    bridge = bridge_for(model)
    return model if bridge is None else bridge.model(model)
