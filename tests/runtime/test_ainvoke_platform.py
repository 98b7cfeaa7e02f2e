"""Helper threads and the event loop's thread wake each other through pipes (``select.poll``
on an ``os.pipe``), and the helper pool resets itself in a forked child
(``os.register_at_fork``): where either is missing (Windows), ainvoke still works.

Each test runs a fresh interpreter (the platform is simulated by deleting the
attribute before hookproof is imported)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import hookproof

SRC = str(Path(hookproof.__file__).resolve().parents[1])  # the hookproof under test

PROGRAM = """
import asyncio
from hookproof.models import ScriptedModel, call
from hookproof.runtime import AgentMiddleware, create_agent, tool

@tool
def lookup(query: str) -> str:
    \"\"\"Look something up.\"\"\"
    return "found:" + query

class Wrap(AgentMiddleware):
    def wrap_model_call(self, request, handler):
        return handler(request)

    def wrap_tool_call(self, request, handler):
        return handler(request)

agent = create_agent(
    ScriptedModel([call("lookup", {"query": "q"}), "done"]), [lookup], middleware=[Wrap()]
)
print("ANSWER", asyncio.run(agent.ainvoke({"messages": [("user", "hi")]})).text)
"""


def _run(
    prelude: str, program: str = PROGRAM, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(prelude) + textwrap.dedent(program)],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )


def test_the_runtime_imports_and_ainvoke_works_without_register_at_fork() -> None:
    done = _run("import os\ndel os.fork, os.register_at_fork  # as on Windows\n")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "ANSWER done" in done.stdout


def test_ainvoke_with_sync_wrap_hooks_works_without_select_poll() -> None:
    done = _run("import select\ndel select.poll\n")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "ANSWER done" in done.stdout
