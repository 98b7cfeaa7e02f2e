"""Seeing a tool's own function run, whatever path called it.

A wrap hook may run a tool itself ("fast path") and skip the inner layers, so no trace event
says the tool ran. While a check runs the agent, a profile hook notes every call into the code
of the tools it watches, on the checking thread and on threads started meanwhile (LangGraph
runs nodes on fresh worker threads).
"""

from __future__ import annotations

import inspect
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from types import CodeType, FrameType
from typing import Any

__all__ = ["tool_code", "watching"]

# Tool kinds keep their function under one of these names: hookproof's Tool and LangChain's
# StructuredTool (func, coroutine), Eino's tool protocols (the *_run methods), a LangChain
# BaseTool subclass (_run, _arun), hookproof's Eino wrapper of a Tool (tool).
_FUNCTIONS = (
    "func",
    "coroutine",
    "invokable_run",
    "streamable_run",
    "enhanced_invokable_run",
    "enhanced_streamable_run",
    "_run",
    "_arun",
)


def _code(value: Any, libraries: tuple[str, ...]) -> CodeType | None:
    function = getattr(inspect.unwrap(value), "__func__", inspect.unwrap(value))
    code = getattr(function, "__code__", None)
    module = getattr(function, "__module__", "") or ""
    return code if isinstance(code, CodeType) and not module.startswith(libraries) else None


def tool_code(tool: Any, libraries: tuple[str, ...]) -> set[CodeType]:
    """The code objects of a tool's own function(s), the code of modules starting with one
    of ``libraries`` (where the framework's tool classes keep their plumbing) left out."""
    inner = getattr(tool, "tool", None)
    found = tool_code(inner, libraries) if inner is not None and inner is not tool else set()
    for name in _FUNCTIONS:
        value = getattr(tool, name, None)
        code = _code(value, libraries) if callable(value) else None
        if code is not None:
            found.add(code)
    return found


@contextmanager
def watching(tools: Mapping[str, Iterable[Any]], libraries: tuple[str, ...]) -> Iterator[set[str]]:
    """Inside the block, the names (keys of ``tools``) whose own tool code was entered."""
    owners = {
        code: name
        for name, items in tools.items()
        for t in items
        for code in tool_code(t, libraries)
    }
    seen: set[str] = set()

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event == "call" and frame.f_code in owners:
            seen.add(owners[frame.f_code])

    previous, previous_threads = sys.getprofile(), threading.getprofile()
    sys.setprofile(profile if owners else previous)
    threading.setprofile(profile if owners else previous_threads)
    try:
        yield seen
    finally:
        sys.setprofile(previous)
        threading.setprofile(previous_threads)
