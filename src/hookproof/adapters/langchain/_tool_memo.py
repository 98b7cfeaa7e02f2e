"""What hookproof reads off a LangChain tool, read once per kind of tool: deepagents makes
new tool objects on every build, and reading one (its schema for the model, its injected
arguments) builds pydantic models each time. A structured tool's name, description,
argument class and function code decide both, so those are the key; any other tool is
read every time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from langchain_core.tools import StructuredTool

__all__ = ["ToolMemo"]

T = TypeVar("T")
_KEPT = 4096


class ToolMemo(Generic[T]):
    """``read(tool)``, kept per kind of structured tool (forgotten past a few thousand)."""

    def __init__(self, read: Callable[[Any], T]) -> None:
        self.read = read
        self.kept: dict[tuple[Any, ...], T] = {}

    def __call__(self, tool: Any) -> T:
        key = _kind(tool)
        if key is None:
            return self.read(tool)
        if key not in self.kept:
            if len(self.kept) >= _KEPT:
                self.kept.clear()
            self.kept[key] = self.read(tool)
        return self.kept[key]


def _kind(tool: Any) -> tuple[Any, ...] | None:
    arguments = getattr(tool, "args_schema", None)
    if not isinstance(tool, StructuredTool) or not isinstance(arguments, type):
        return None
    function = tool.func or tool.coroutine
    code = getattr(function, "__code__", None)
    notes = repr(getattr(function, "__annotations__", None))
    return (type(tool), tool.name, tool.description, arguments, code, notes)
