"""Snapshot directories before and after an upgrade, shared by the review tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookproof.messages import SystemMessage, UserMessage
from hookproof.models import FinalRequest
from hookproof.provenance import AGENT, Provenance, ToolOrigin
from hookproof.snapshot import render
from hookproof.tools import ToolSchema

PROMPT = "You are a careful assistant.\nCite your sources.\nNever guess."


def tool(name: str, description: str, **properties: Any) -> ToolSchema:
    schema = {"type": "object", "properties": properties, "required": sorted(properties)}
    return ToolSchema(name=name, description=description, parameters=schema)


READ = tool("read_file", "Read a file.", path={"type": "string"})
DELETE = tool("delete", "Delete a file for good.", path={"type": "string"})


def request(
    prompt: str = PROMPT, tools: tuple[ToolSchema, ...] = (READ,), user: str = "hello"
) -> FinalRequest:
    return FinalRequest(
        model="fast",
        system_message=SystemMessage(content=prompt),
        messages=(UserMessage(content=user),),
        tools=tools,
    )


def write(directory: Path, name: str, final: FinalRequest) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(final), encoding="utf-8")
    return path


NEW_PROMPT = "You are a careful assistant.\nCite every source you use.\nNever guess."
NEW_READ = tool("read_file", "Read a UTF-8 text file.", path={"type": "string"})


# The candidate was recorded by a hookproof that notes provenance, the baseline by one that
# did not (format 1): the gate names origins from the side that has them.
FILES = "FilesystemMiddleware"
NEW_PROVENANCE = Provenance(
    tools=(
        ToolOrigin("delete", (f"registered by {FILES}",)),
        ToolOrigin("read_file", (f"registered by {FILES}", "description changed by Upgrade")),
    ),
    system=(AGENT, "Policy", AGENT),
)


def upgrade(tmp_path: Path, snapshots: int = 3) -> tuple[Path, Path]:
    """``snapshots`` tests whose upgrade changed a prompt line, a tool description and made
    the ``delete`` tool visible, identically in each."""
    old, new = tmp_path / "baseline", tmp_path / "candidate"
    for index in range(snapshots):
        name = f"tests/test_app/case_{index}.txt"
        write(old, name, request(user=f"question {index}"))
        after = request(NEW_PROMPT, (NEW_READ, DELETE), user=f"question {index}")
        write(new, name, after.with_provenance(NEW_PROVENANCE))
    return old, new
