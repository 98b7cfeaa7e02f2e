"""deepagents' default StateBackend on the reference engine, against LangChain's create_agent.

The backend reads and writes the agent's ``files`` state key through LangGraph's channel
read and send (get_config()'s ``configurable``), from deepagents' file tools, from its
hooks (MemoryMiddleware reads AGENTS.md in before_agent) and from wrap hooks. The same
build, script and input give the same files and the same tool answers on both engines."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("deepagents", reason="install hookproof[deepagents] to run these")

from deepagents.backends import StateBackend
from deepagents.backends.utils import create_file_data
from deepagents.middleware import FilesystemMiddleware, MemoryMiddleware
from langchain.agents import create_agent as langchain_create_agent
from langchain_core.messages import ToolMessage as LCToolMessage

from hookproof.adapters.langchain import ScriptedChatModel
from hookproof.messages import ToolMessage
from hookproof.models import call
from hookproof.runtime import create_agent

Script = list[Any]


def _files_and_answers(result: Any) -> tuple[dict[str, str], list[str]]:
    """The files' contents by path, and the tool answers, from either engine's result."""
    if isinstance(result, dict):
        state, messages = result, result["messages"]
        answers = [m.text for m in messages if isinstance(m, LCToolMessage)]
    else:
        state, messages = result.state, result.messages
        answers = [m.text for m in messages if isinstance(m, ToolMessage)]
    files = {path: data["content"] for path, data in (state.get("files") or {}).items()}
    return files, answers


def _on_both(build: Callable[[Any, Script], Any], script: Script, given: Any) -> Any:
    langchain = build(langchain_create_agent, list(script)).invoke(given)
    reference = build(create_agent, list(script)).invoke(given)
    expected = _files_and_answers(langchain)
    assert _files_and_answers(reference) == expected
    return expected


def _filesystem(factory: Any, script: Script) -> Any:
    middleware = FilesystemMiddleware(backend=StateBackend())
    return factory(ScriptedChatModel(script), [], middleware=[middleware])


HI = {"messages": [("user", "hi")]}


def test_file_tools_write_edit_and_read_the_agents_files() -> None:
    script = [
        call("write_file", {"file_path": "/a.txt", "content": "one two"}, id="c1"),
        call("edit_file", {"file_path": "/a.txt", "old_string": "two", "new_string": "2"}),
        call("read_file", {"file_path": "/a.txt"}, id="c3"),
        "done",
    ]
    files, answers = _on_both(_filesystem, script, HI)
    assert files == {"/a.txt": "one 2"}
    assert "one 2" in answers[-1]


def test_files_given_as_input_are_listed_and_a_missing_one_is_an_error() -> None:
    given = {**HI, "files": {"/notes.md": create_file_data("kept")}}
    script = [call("ls", {"path": "/"}, id="c1"), call("read_file", {"file_path": "/x"}), "ok"]
    files, answers = _on_both(_filesystem, script, given)
    assert files == {"/notes.md": "kept"}
    assert "/notes.md" in answers[0]
    assert "not found" in answers[1].lower()


def test_two_writes_in_one_turn_both_reach_the_state() -> None:
    script = [
        [
            call("write_file", {"file_path": "/a", "content": "A"}, id="c1"),
            call("write_file", {"file_path": "/b", "content": "B"}, id="c2"),
        ],
        "done",
    ]
    files, _ = _on_both(_filesystem, script, HI)
    assert files == {"/a": "A", "/b": "B"}


def _memory(factory: Any, script: Script) -> Any:
    memory = MemoryMiddleware(backend=StateBackend(), sources=["/AGENTS.md"])
    files = FilesystemMiddleware(backend=StateBackend())
    return factory(ScriptedChatModel(script), [], middleware=[files, memory])


def test_a_hook_reads_the_agents_files_through_the_backend() -> None:
    given = {**HI, "files": {"/AGENTS.md": create_file_data("Always answer in French.")}}
    result = _memory(create_agent, ["bonjour"]).invoke(given)
    assert result.state["memory_contents"] == {"/AGENTS.md": "Always answer in French."}
    _on_both(_memory, ["bonjour"], given)
