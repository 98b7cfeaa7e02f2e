"""Pages of the documentation site run as a reader follows them.

A page is read top to bottom as a list of steps:

- a fenced block whose first line names a file (``# path/to/file.py``, ``// path/file.go``,
  any language) writes that file into the project; a later block naming the same path
  replaces it (an upgrade, an edit);
- each command of a ``sh`` block runs in the project with bash, in order; a trailing comment
  states what it must give: ``exit N`` (0 when not stated) and pytest-style counts
  (``2 passed``, ``1 failed``) that must appear in its output. Install commands
  (``pip install``, ``git clone``) are not run: the suite runs in the environment they
  describe, and a test provides the checkout a page clones;
- a ``text`` block right under a ``sh`` block (nothing but blank lines between them) is what
  its last command prints: each of its lines must appear in that output. A ``text`` block
  after prose is an excerpt of a file, not checked here.

So editing a page changes what is tested, and a page cannot state an outcome it does not
produce.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
FILE_HEADER = re.compile(r"(?:#|//) ([\w./-]+\.[\w]+)\n")
COUNT = re.compile(r"\b(\d+) (passed|failed|errors?|skipped|snapshots? generated)\b")
EXIT = re.compile(r"\bexit (\d+)\b")
NOT_RUN = re.compile(r"^((python -m )?pip install|git clone)\b")
TIMEOUT_SECONDS = 600


@dataclass(frozen=True)
class FileStep:
    path: str
    text: str


@dataclass(frozen=True)
class CommandStep:
    command: str
    exit_code: int = 0
    counts: tuple[str, ...] = ()
    output: tuple[str, ...] = field(default=())


Step = FileStep | CommandStep


def read_page(relative: str) -> str:
    return (DOCS / relative).read_text(encoding="utf-8")


def steps(page: str) -> list[Step]:
    """The page's file and command steps, in the order a reader meets them."""
    found: list[Step] = []
    previous_language, previous_end = "", 0
    for block in FENCE.finditer(page):
        language, body = block.group(1), block.group(2)
        header = FILE_HEADER.match(body)
        if header:
            found.append(FileStep(header.group(1), body))
        elif language == "sh":
            found.extend(_commands(body))
        elif language == "text" and previous_language == "sh" and _under(page, previous_end, block):
            last = found[-1]
            assert isinstance(last, CommandStep), "a text block follows a command"
            lines = tuple(line.rstrip() for line in body.splitlines() if line.strip())
            found[-1] = CommandStep(last.command, last.exit_code, last.counts, lines)
        previous_language, previous_end = language, block.end()
    return found


def _under(page: str, previous_end: int, block: re.Match[str]) -> bool:
    return not page[previous_end : block.start()].strip()


def _commands(body: str) -> list[CommandStep]:
    joined = body.replace("\\\n", " ")
    commands = []
    for line in joined.splitlines():
        command, _, comment = line.partition("  #")
        command = command.strip()
        if not command or command.startswith("#") or NOT_RUN.match(command):
            continue
        exit_code = EXIT.search(comment)
        counts = tuple(" ".join(match) for match in COUNT.findall(comment))
        commands.append(CommandStep(command, int(exit_code.group(1)) if exit_code else 0, counts))
    return commands


def files_of(page: str) -> dict[str, str]:
    """Each file the page writes, as it last writes it."""
    return {step.path: step.text for step in steps(page) if isinstance(step, FileStep)}


def environment() -> dict[str, str]:
    """This interpreter's environment for the page's commands, without what would make a
    nested pytest think it is one of this run's workers."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("PYTEST_", "COV_", "HYPOTHESIS_"))
    }
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    # LangSmith's pytest plugin (installed with LangChain) takes no part in any page and
    # costs every nested pytest seconds of imports.
    env["PYTEST_ADDOPTS"] = "-p no:langsmith_plugin"
    return env


def follow(page: str, project: Path) -> list[subprocess.CompletedProcess[str]]:
    """Every step of ``page`` in ``project``, each command checked against what the page
    says it gives; the completed commands, in order."""
    done = []
    env = environment()
    for step in steps(page):
        if isinstance(step, FileStep):
            path = project / step.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(step.text, encoding="utf-8")
            continue
        done.append(run(step, project, env))
    return done


def run(step: CommandStep, project: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        ["bash", "-c", step.command],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=TIMEOUT_SECONDS,
        check=False,
    )
    said = f"`{step.command}` gave exit {result.returncode}:\n{result.stdout}\n{result.stderr}"
    assert result.returncode == step.exit_code, said
    output = result.stdout + result.stderr
    for count in step.counts:
        assert re.search(rf"(?<!\d){re.escape(count)}\b", output), f"no {count!r} in {said}"
    for line in step.output:
        assert line in output, f"the page shows {line!r}, not printed by {said}"
    return result
