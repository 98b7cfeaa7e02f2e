"""The harness's file store: files live in agent state, so threads and runs never share them.

``StateBackend(files={...})`` seeds files into each new thread; ``execute=`` gives the
backend a command runner, which is what makes the ``execute`` tool appear.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hookproof.errors import ToolError

__all__ = ["StateBackend", "merge_files"]


def merge_files(
    current: Mapping[str, str] | None, update: Mapping[str, str | None]
) -> dict[str, str]:
    """Reducer for the ``files`` state key: a None value deletes the file."""
    merged = dict(current or {})
    for path, content in update.items():
        if content is None:
            merged.pop(path, None)
        else:
            merged[path] = content
    return merged


def _glob_regex(pattern: str) -> re.Pattern[str]:
    parts, index = [], 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            parts.append("(?:.*/)?")
            index += 3
        elif pattern.startswith("**", index):
            parts.append(".*")
            index += 2
        elif pattern[index] == "*":
            parts.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            parts.append("[^/]")
            index += 1
        else:
            parts.append(re.escape(pattern[index]))
            index += 1
    return re.compile("".join(parts))


def _normalise(path: str) -> str:
    if not path.startswith("/"):
        raise ToolError(f"Error: path {path!r} must be absolute (start with /).")
    return "/" + "/".join(part for part in path.split("/") if part)


@dataclass(frozen=True)
class StateBackend:
    """Operations over a ``files`` mapping; writes return the update to apply to state."""

    files: Mapping[str, str] = field(default_factory=dict)
    execute: Callable[[str], str] | None = None

    @property
    def can_execute(self) -> bool:
        return self.execute is not None

    def ls(self, files: Mapping[str, str], path: str) -> list[str]:
        if _normalise(path) in files:
            return [_normalise(path)]
        base = _normalise(path).rstrip("/") + "/"
        entries = {
            base + rest.split("/", 1)[0] + ("/" if "/" in rest else "")
            for name in files
            if name.startswith(base) and (rest := name[len(base) :])
        }
        return sorted(entries)

    def read(self, files: Mapping[str, str], path: str, offset: int, limit: int) -> str:
        if offset < 0 or limit < 1:
            raise ToolError(f"Error: offset must be >= 0 and limit >= 1 (got {offset}, {limit}).")
        content = self._content(files, path)
        lines = content.split("\n")
        if offset >= len(lines) and lines != [""]:
            raise ToolError(
                f"Error: offset {offset} is past the end of {path} ({len(lines)} lines)."
            )
        shown = lines[offset : offset + limit]
        return "\n".join(f"{offset + i + 1:6d}\t{line}" for i, line in enumerate(shown))

    def write(self, files: Mapping[str, str], path: str, content: str) -> dict[str, str]:
        target = _normalise(path)
        if target in files:
            raise ToolError(f"Error: {target} already exists; use edit_file to change it.")
        return {target: content}

    def edit(
        self, files: Mapping[str, str], path: str, old: str, new: str, replace_all: bool
    ) -> dict[str, str]:
        if not old:
            raise ToolError("Error: old_string is empty; give the exact text to replace.")
        content = self._content(files, path)
        count = content.count(old)
        if count == 0:
            raise ToolError(f"Error: the text to replace was not found in {path}.")
        if count > 1 and not replace_all:
            raise ToolError(
                f"Error: the text to replace occurs {count} times in {path}; give more context "
                "or set replace_all."
            )
        return {_normalise(path): content.replace(old, new, -1 if replace_all else 1)}

    def glob(self, files: Mapping[str, str], pattern: str, path: str) -> list[str]:
        """Shell-style: ``*`` stays within a directory, ``**/`` spans any number of them."""
        base = _normalise(path).rstrip("/") + "/"
        regex = _glob_regex(pattern)
        return sorted(
            name for name in files if name.startswith(base) and regex.fullmatch(name[len(base) :])
        )

    def grep(
        self, files: Mapping[str, str], pattern: str, path: str, glob: str | None
    ) -> list[str]:
        try:
            regex = re.compile(pattern)
        except re.error as error:
            raise ToolError(f"Error: invalid regular expression {pattern!r}: {error}.") from None
        target = _normalise(path)
        names = [target] if target in files else self.glob(files, glob or "**", path)
        return [
            f"{name}:{number}: {line}"
            for name in names
            for number, line in enumerate(files[name].split("\n"), start=1)
            if regex.search(line)
        ]

    def run(self, command: str) -> str:
        if self.execute is None:
            raise ToolError("Error: this backend cannot execute commands.")
        return self.execute(command)

    def _content(self, files: Mapping[str, str], path: str) -> str:
        target = _normalise(path)
        if target not in files:
            raise ToolError(f"Error: file {target} not found.")
        return files[target]


def files_of(state: Mapping[str, Any]) -> Mapping[str, str]:
    files = state.get("files")
    return files if isinstance(files, Mapping) else {}
