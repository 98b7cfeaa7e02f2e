"""hookproof gate over snapshots a Go suite wrote: an Eino upgrade gated as deepagents is."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.go.toolchain import run_go

pytestmark = pytest.mark.slow  # each test runs go test twice

SNAPSHOT_TEST = "TestAnEinoAgentsFinalRequestIsSnapshot"


def write_snapshots(directory: Path, variant: str) -> None:
    env = {
        "HOOKPROOF_SNAPSHOT_DIR": str(directory),
        "HOOKPROOF_SNAPSHOT_UPDATE": "1",
        "HOOKPROOF_EXAMPLE_VARIANT": variant,
    }
    result = run_go("test", "-count=1", "-run", f"^{SNAPSHOT_TEST}$", ".", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (directory / SNAPSHOT_TEST / "final_request.txt").is_file()


def gate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hookproof", "gate", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_gate_reads_go_snapshots_and_reports_the_upgrades_changes(tmp_path: Path) -> None:
    baseline, candidate = tmp_path / "baseline", tmp_path / "candidate"
    write_snapshots(baseline, "")
    write_snapshots(candidate, "upgraded")
    passed = gate(str(baseline), str(candidate))
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "REVIEW   system prompt: lines changed" in passed.stdout
    assert "REVIEW   tool search: description changed" in passed.stdout
    failed = gate("--fail-on", "review", str(baseline), str(candidate))
    assert failed.returncode == 1, failed.stdout + failed.stderr


def test_gate_finds_nothing_between_two_runs_of_the_same_go_suite(tmp_path: Path) -> None:
    write_snapshots(tmp_path / "first", "")
    write_snapshots(tmp_path / "second", "")
    result = gate(str(tmp_path / "first"), str(tmp_path / "second"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 snapshot, 1 unchanged" in result.stdout
