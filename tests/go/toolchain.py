"""The Go toolchain for the tests of the Go companion (go/).

Without `go` on PATH a test needing it is skipped, saying so; under CI (CI=true) a missing
toolchain is a failure instead, so CI cannot pass while never running the Go side.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

GO_MODULE = Path(__file__).resolve().parents[2] / "go"
GO_TIMEOUT_SECONDS = 300


def go_binary() -> str:
    """The go command, or a skip (a failure under CI) naming what is missing."""
    found = shutil.which("go")
    if found is not None:
        return found
    reason = "the Go toolchain (`go`) is not on PATH: the Go companion's tests in go/ did not run"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{reason}; CI must run them (install Go 1.22 or later).")
    pytest.skip(f"{reason} (install Go 1.22 or later to run them).")


def run_go(
    *args: str,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    module: Path = GO_MODULE,
    timeout: float = GO_TIMEOUT_SECONDS,
) -> subprocess.CompletedProcess[str]:
    """``go ARGS`` in ``module`` (go/ by default), its output captured; the caller checks
    the return code."""
    return subprocess.run(
        [go_binary(), *args],
        cwd=module,
        env={**os.environ, **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        check=False,
    )


class GoProgram:
    """One of go/cmd's programs, built once and kept running: it answers each JSON line it
    reads on stdin with a JSON line on stdout."""

    def __init__(self, binary: Path) -> None:
        self.process = subprocess.Popen(
            [str(binary)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    @classmethod
    def built(cls, command: str, directory: Path) -> GoProgram:
        """``go build ./cmd/<command>`` into ``directory``, then started."""
        binary = directory / command
        made = run_go("build", "-buildvcs=false", "-o", str(binary), f"./cmd/{command}")
        assert made.returncode == 0, made.stderr
        return cls(binary)

    def ask(self, question: Mapping[str, Any]) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(question) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)
        self.process.stdout.close()
