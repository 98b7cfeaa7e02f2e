"""File tools over the state-backed file store: ls, read_file, write_file, edit_file, glob,
grep, and execute when the backend can run commands."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from hookproof.harness._system import with_section
from hookproof.harness.backend import StateBackend, files_of, merge_files
from hookproof.harness.prompts import EXECUTE_SECTION, FILESYSTEM_SECTION
from hookproof.messages import ToolMessage
from hookproof.runtime import AgentMiddleware, Command, ModelRequest, ToolRuntime, tool
from hookproof.tools import Tool


class FilesState(TypedDict):
    messages: list[Any]
    files: Annotated[dict[str, str], merge_files]


def _written(runtime: ToolRuntime[Any], name: str, update: dict[str, str], text: str) -> Command:
    reply = ToolMessage(content=text, tool_call_id=runtime.tool_call_id or "", name=name)
    return Command(update={"files": update, "messages": [reply]})


def filesystem_tools(backend: StateBackend) -> tuple[Tool, ...]:
    @tool
    def ls(runtime: ToolRuntime[Any], path: str = "/") -> str:
        """List the files and directories directly under a directory."""
        return "\n".join(backend.ls(files_of(runtime.state), path)) or "(empty)"

    @tool
    def read_file(
        file_path: str, runtime: ToolRuntime[Any], offset: int = 0, limit: int = 2000
    ) -> str:
        """Read a file with line numbers; offset and limit select a window of lines."""
        return backend.read(files_of(runtime.state), file_path, offset, limit)

    @tool
    def write_file(file_path: str, content: str, runtime: ToolRuntime[Any]) -> Command:
        """Create a new file with the given content."""
        update = backend.write(files_of(runtime.state), file_path, content)
        return _written(runtime, "write_file", update, f"Wrote {next(iter(update))}")

    @tool
    def edit_file(
        file_path: str,
        old_string: str,
        new_string: str,
        runtime: ToolRuntime[Any],
        replace_all: bool = False,
    ) -> Command:
        """Replace exact text in a file (every occurrence with replace_all)."""
        files = files_of(runtime.state)
        update = backend.edit(files, file_path, old_string, new_string, replace_all)
        return _written(runtime, "edit_file", update, f"Edited {next(iter(update))}")

    @tool
    def glob(pattern: str, runtime: ToolRuntime[Any], path: str = "/") -> str:
        """Find files whose path under a directory matches a glob pattern."""
        return "\n".join(backend.glob(files_of(runtime.state), pattern, path)) or "(no match)"

    @tool
    def grep(
        pattern: str, runtime: ToolRuntime[Any], path: str = "/", glob: str | None = None
    ) -> str:
        """Search file contents with a regular expression; lines print as path:line: text."""
        found = backend.grep(files_of(runtime.state), pattern, path, glob)
        return "\n".join(found) or "(no match)"

    tools: tuple[Tool, ...] = (ls, read_file, write_file, edit_file, glob, grep)
    if backend.can_execute:

        @tool
        def execute(command: str) -> str:
            """Run a shell command in the sandbox and return its output."""
            return backend.run(command)

        tools = (*tools, execute)
    return tools


class FilesystemMiddleware(AgentMiddleware):
    """File tools, the files state key, seed files, and the prompt section."""

    state_schema = FilesState

    def __init__(self, backend: StateBackend | None = None) -> None:
        self.backend = backend or StateBackend()
        self.tools = filesystem_tools(self.backend)

    def before_agent(self, state: Any, runtime: Any) -> Any:
        if "files" in state or not self.backend.files:
            return None
        return {"files": dict(self.backend.files)}

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Any]) -> Any:
        section = FILESYSTEM_SECTION
        if self.backend.can_execute:
            section = f"{section}\n{EXECUTE_SECTION}"
        return handler(with_section(request, section))
