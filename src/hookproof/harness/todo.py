"""Todo list: the ``write_todos`` tool keeps a plan in state; a prompt section explains it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from typing_extensions import TypedDict

from hookproof.harness._system import with_section
from hookproof.harness.prompts import TODO_SECTION
from hookproof.messages import ToolMessage
from hookproof.runtime import AgentMiddleware, Command, ModelRequest, ToolRuntime, tool


class Todo(TypedDict):
    content: str
    status: Literal["pending", "in_progress", "completed"]


class TodoState(TypedDict):
    messages: list[Any]
    todos: list[Todo]  # no reducer: each write replaces the list


@tool
def write_todos(todos: list[Todo], runtime: ToolRuntime[Any]) -> Command:
    """Replace the todo list with the given items (content and status for each)."""
    plan = [dict(item) for item in todos]
    summary = ", ".join(f"{item['content']} [{item['status']}]" for item in plan) or "empty"
    reply = ToolMessage(
        content=f"Todo list updated: {summary}",
        tool_call_id=runtime.tool_call_id or "",
        name="write_todos",
    )
    return Command(update={"todos": plan, "messages": [reply]})


class TodoListMiddleware(AgentMiddleware):
    """Adds write_todos and its prompt section."""

    state_schema = TodoState
    tools = (write_todos,)

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Any]) -> Any:
        return handler(with_section(request, TODO_SECTION))
