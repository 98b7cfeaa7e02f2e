"""The Go companion's own tests (go/), run from the Quick start's test command: on the oldest
Eino the module supports (go.mod's requirement), through the Go-only CI job (.ci/go-only: go
vet, go test and the Go gate with only the Go toolchain on PATH, so the Go side is shown to
need no Python), and on the newest hookproof is checked against (go/eino-latest.mod, the
scenario runner's)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hookproof.conformance._eino_go import LATEST_EINO_MODFILE
from tests.go.toolchain import GO_MODULE, go_binary, run_go

EINO = "github.com/cloudwego/eino"
OLDEST_EINO = "v0.9.0"  # AfterAgent and ChatModelAgentState.ToolInfos arrived in v0.9.0
LATEST = f"-modfile={LATEST_EINO_MODFILE}"
GO_ONLY = GO_MODULE.parent / ".ci" / "go-only"
GO_ONLY_TIMEOUT_SECONDS = 1200  # a cold build without cgo rebuilds Eino: minutes on two cores


def _eino_used(*flags: str) -> str:
    listed = run_go("list", *flags, "-m", EINO)
    assert listed.returncode == 0, listed.stderr
    return listed.stdout.split()[1]


def _required_eino(module_file: str) -> str:
    found = re.findall(rf"^\s*{re.escape(EINO)} (v\S+)$", module_file, re.MULTILINE)
    assert len(found) == 1, module_file
    return str(found[0])


def test_go_mod_requires_the_oldest_eino_and_the_latest_file_differs_only_there() -> None:
    go_mod = (GO_MODULE / "go.mod").read_text("utf-8")
    latest = (GO_MODULE / LATEST_EINO_MODFILE).read_text("utf-8")
    assert _required_eino(go_mod) == OLDEST_EINO
    newest = _required_eino(latest)
    assert tuple(map(int, newest[1:].split("."))) > tuple(map(int, OLDEST_EINO[1:].split(".")))
    without_comments = "".join(
        line for line in latest.splitlines(True) if not line.startswith("//")
    )
    assert without_comments.replace(f"{EINO} {newest}", f"{EINO} {OLDEST_EINO}") == go_mod


@pytest.mark.slow
def test_the_go_module_builds_and_its_tests_pass_on_the_oldest_eino_without_python() -> None:
    assert _eino_used() == OLDEST_EINO
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
    bash = shutil.which("bash") or "/bin/bash"
    result = subprocess.run(
        [bash, str(GO_ONLY), "--inner", str(GO_MODULE), str(tmp_path)],
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


@pytest.mark.slow
def test_the_go_module_builds_and_its_tests_pass_on_the_latest_eino() -> None:
    assert _eino_used(LATEST) == _required_eino((GO_MODULE / LATEST_EINO_MODFILE).read_text())
    result = run_go("test", LATEST, "./...")
    assert result.returncode == 0, (
        f"go test {LATEST} ./... failed:\n{result.stdout}\n{result.stderr}"
    )


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
