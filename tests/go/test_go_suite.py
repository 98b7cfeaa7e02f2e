"""The Go companion's own tests (go/), run from the README's test command.

Without a Go toolchain the test is skipped, saying so; under CI (CI=true) a missing toolchain
is a failure instead, so CI cannot pass while never running the Go side.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

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


def test_the_go_module_builds_and_its_tests_pass() -> None:
    result = subprocess.run(
        [go_binary(), "test", "./..."],
        cwd=GO_MODULE,
        capture_output=True,
        text=True,
        timeout=GO_TIMEOUT_SECONDS,
        check=False,
    )
    assert result.returncode == 0, f"go test ./... failed:\n{result.stdout}\n{result.stderr}"


def test_a_missing_toolchain_skips_outside_ci_and_fails_in_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="not on PATH"):
        go_binary()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run them"):
        go_binary()
