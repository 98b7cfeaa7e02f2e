"""The scenarios on real Eino: go/cmd/einoscenario, built from the Go sources hookproof
ships (hookproof/_go in a wheel, go/ in a checkout) with the local Go toolchain.

Nothing here pretends: without Go, or when the build or the program fails, a
GoToolchainError says what is missing and how to fix it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import IO, Any

from hookproof.conformance._eino_python import Outcome
from hookproof.conformance._eino_scenarios import Scenario
from hookproof.errors import GoToolchainError

__all__ = ["LATEST_EINO_MODFILE", "EinoProgram", "build_program", "go_sources", "real_eino"]

PROGRAM = "einoscenario"
# go.mod requires the oldest Eino the module supports; the runner is built on the newest
# hookproof is checked against, which this module file (go.mod with Eino raised) names.
LATEST_EINO_MODFILE = "eino-latest.mod"
BUILD_TIMEOUT_SECONDS = 600
_NOTHING_RUN = "Nothing was compared: no semantic is reported as holding."
_CHECKOUT = Path(__file__).resolve().parents[3] / "go"


def go_sources() -> Path:
    """The Go module's directory: shipped in the wheel, or the checkout's go/."""
    shipped = Path(str(resources.files("hookproof") / "_go"))
    for candidate in (shipped, _CHECKOUT):
        module_files = (candidate / "go.mod", candidate / LATEST_EINO_MODFILE)
        if all(path.is_file() for path in module_files) and (candidate / "cmd" / PROGRAM).is_dir():
            return candidate
    raise GoToolchainError(
        f"hookproof: the Go sources of the Eino scenario runner are not installed (looked in "
        f"{shipped} and {_CHECKOUT}). They ship in hookproof's wheel under hookproof/_go; "
        f"reinstall hookproof from a wheel or run from a checkout. {_NOTHING_RUN}"
    )


def _go() -> str:
    found = shutil.which("go")
    if found is None:
        raise GoToolchainError(
            "hookproof: `hookproof conformance --target eino` runs each scenario on real Eino, "
            "which needs the Go toolchain, and `go` is not on PATH. Install Go 1.22 or later "
            f"(and put its bin directory on PATH), then run the command again. {_NOTHING_RUN}"
        )
    return found


def build_program(directory: Path) -> Path:
    """``go build`` the runner into ``directory``; its path."""
    sources, binary = go_sources(), directory / PROGRAM
    command = [_go(), "build", "-buildvcs=false", f"-modfile={LATEST_EINO_MODFILE}"]
    command += ["-o", str(binary), f"./cmd/{PROGRAM}"]
    try:
        made = subprocess.run(
            command,
            cwd=sources,
            env={**os.environ, "GOWORK": "off"},
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise GoToolchainError(
            f"hookproof: `go build` of the Eino scenario runner in {sources} did not finish "
            f"({error}). Check the Go installation and run again. {_NOTHING_RUN}"
        ) from error
    if made.returncode != 0:
        detail = "\n".join(made.stderr.strip().splitlines()[-8:])
        raise GoToolchainError(
            f"hookproof: `go build` of the Eino scenario runner failed (exit {made.returncode}) "
            f"in {sources}:\n{detail}\nIt needs Eino and its dependencies (go.mod pins them): "
            "give Go access to a module proxy (GOPROXY, network), or fill the module cache "
            f"beforehand with `go mod download` in {sources}. {_NOTHING_RUN}"
        )
    return binary


def _outcome(answer: dict[str, Any], scenario: Scenario) -> Outcome:
    shown = "provenance_requests" if scenario.handlers else "requests"  # see _eino_python
    return Outcome(
        labels=tuple(answer["labels"]),
        requests=tuple(answer[shown]),
        events=tuple(answer["events"]),
        failed=bool(answer["error"]),
    )


class EinoProgram:
    """The built runner, started once: each scenario is a JSON line in, an outcome out."""

    def __init__(self, binary: Path, stderr: IO[str]) -> None:
        self._stderr = stderr
        try:
            self._process = subprocess.Popen(
                [str(binary)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                encoding="utf-8",
            )
        except OSError as error:  # e.g. a temporary directory mounted noexec
            raise GoToolchainError(
                f"hookproof: the Eino scenario runner was built as {binary} but cannot be "
                f"started ({error}). If the temporary directory does not allow running "
                "programs (noexec), point TMPDIR at one that does. " + _NOTHING_RUN
            ) from None

    def run(self, scenario: Scenario) -> Outcome:
        process = self._process
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(scenario.to_json() + "\n")
            process.stdin.flush()
            line = process.stdout.readline()
        except OSError:
            line = ""
        if not line:
            raise self._died(scenario)
        return _outcome(json.loads(line), scenario)

    def _died(self, scenario: Scenario) -> GoToolchainError:
        self._stderr.seek(0)
        detail = "\n".join(self._stderr.read().strip().splitlines()[-12:])
        return GoToolchainError(
            f"hookproof: the Eino scenario runner stopped on the scenario {scenario.to_json()}:"
            f"\n{detail}\nThis is a bug in hookproof's Go runner (or Eino panicked); please "
            f"report it with this output. {_NOTHING_RUN}"
        )

    def close(self) -> None:
        process = self._process
        assert process.stdin is not None and process.stdout is not None
        with contextlib.suppress(OSError):  # it already stopped; wait() collects it
            process.stdin.close()
        process.wait(timeout=30)
        process.stdout.close()


@contextmanager
def real_eino(directory: Path | None = None) -> Iterator[EinoProgram]:
    """Build the runner (into ``directory``, or a temporary one) and keep it running."""
    with tempfile.TemporaryDirectory(prefix="hookproof-eino-") as scratch:
        binary = build_program(directory or Path(scratch))
        with tempfile.TemporaryFile("w+", encoding="utf-8") as stderr:
            program = EinoProgram(binary, stderr)
            try:
                yield program
            finally:
                program.close()
