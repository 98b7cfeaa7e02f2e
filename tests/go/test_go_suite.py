"""The Go companion's own tests (go/), run from the README's test command: the Go-only CI
job (.ci/go-only), which runs go vet, go test and the Go gate with only the Go toolchain on
PATH, so the Go side is shown to need no Python."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.go.toolchain import GO_MODULE, go_binary, run_go

GO_ONLY = GO_MODULE.parent / ".ci" / "go-only"
GO_ONLY_TIMEOUT_SECONDS = 1200  # a cold build without cgo rebuilds Eino: minutes on two cores


@pytest.mark.slow
def test_the_go_module_builds_and_its_tests_pass_without_python() -> None:
    go_binary()  # skipped (failed under CI) without a toolchain, saying so
    result = subprocess.run(
        [str(GO_ONLY)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=GO_ONLY_TIMEOUT_SECONDS,
        check=False,
    )
    assert result.returncode == 0, f".ci/go-only failed:\n{result.stdout}\n{result.stderr}"
    assert "passed without Python" in result.stdout


def test_the_go_only_job_refuses_to_run_where_python_is_reachable(tmp_path: Path) -> None:
    fake = tmp_path / "bin" / "python3"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n", "utf-8")
    fake.chmod(0o755)
    result = subprocess.run(
        [
            shutil.which("bash") or "/bin/bash",
            str(GO_ONLY),
            "--inner",
            str(GO_MODULE),
            str(tmp_path),
        ],
        env={"PATH": str(fake.parent)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "python3 is reachable; this job must run without Python" in result.stderr


@pytest.mark.slow
def test_the_go_gate_command_prints_its_usage() -> None:
    result = run_go("run", "./cmd/hookproof", "gate", "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: hookproof gate ")


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
