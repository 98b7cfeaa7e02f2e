"""The sharded-CI recipe of the docs, run as written on a small project: pytest-split
splits the suite by recorded durations, each shard writes only the snapshots of the tests it
ran (into its own directory), ``hookproof gate`` runs once over the merged directories, and a
shard writing into the shared directory never deletes the snapshots of another shard."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

MODULE = '''
import pytest
from hookproof.runtime import create_agent, tool

@tool
def search(query: str) -> str:
    """{description}"""
    return "found"

@pytest.mark.parametrize("role", ["admin", "guest", "auditor"])
@pytest.mark.hookproof(script=["done"])
def test_request(recording_model, hookproof_snapshot, role):
    agent = create_agent(recording_model, [search], system_prompt=f"You help the {{role}}.")
    agent.invoke({{"messages": [("user", "hi")]}})
    assert recording_model.last == hookproof_snapshot
'''


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    if importlib.util.find_spec("pytest_split") is None:
        reason = "pytest-split is not installed (pip install 'hookproof[split]')"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; CI must run the shard recipe")
        pytest.skip(reason)
    for name in ("test_core", "test_tools"):
        pytester.makepyfile(**{name: MODULE.format(description="Search the docs.")})
    return pytester


def _snapshots(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*.txt")}


def _shard(project: pytest.Pytester, group: int, *args: str) -> pytest.RunResult:
    split = ["--splits", "2", "--group", str(group), "--durations-path", "durations.json"]
    return project.runpytest_subprocess(*split, *args)


def test_shards_write_their_own_snapshots_and_the_gate_runs_once_on_the_merge(
    project: pytest.Pytester,
) -> None:
    recorded = project.runpytest_subprocess(
        "--snapshot-update", "--store-durations", "--durations-path", "durations.json"
    )
    recorded.assert_outcomes(passed=6)
    baseline = _snapshots(project.path / "snapshots")
    assert len(baseline) == 6
    project.makepyfile(test_tools=MODULE.format(description="Search the docs and the web."))

    ran = []
    for group in (1, 2):
        shard = _shard(project, group, "-o", f"hookproof_snapshot_dir=shard-{group}")
        shard_run = _shard(
            project, group, "-o", f"hookproof_snapshot_dir=shard-{group}", "--snapshot-update"
        )
        assert shard_run.ret == pytest.ExitCode.OK
        ran.append(_snapshots(project.path / f"shard-{group}"))
        assert shard.ret == pytest.ExitCode.TESTS_FAILED  # a fresh directory: all new
    assert ran[0] and ran[1] and not ran[0] & ran[1]  # each wrote only its own
    assert ran[0] | ran[1] == baseline

    merged = project.path / "merged"
    for group in (1, 2):
        shutil.copytree(project.path / f"shard-{group}", merged, dirs_exist_ok=True)
    gate = project.run(
        sys.executable, "-m", "hookproof", "gate", "snapshots", "merged",
        "--format", "json", "--fail-on", "none",
    )  # fmt: skip
    assert gate.ret == 0, gate.stderr.str()
    files = json.loads(gate.stdout.str())["files"]
    assert len(files) == 6  # the merge holds every test's snapshot
    changed = [entry["path"] for entry in files if entry["status"] != "unchanged"]
    assert len(changed) == 3 and all(path.startswith("test_tools") for path in changed)


def test_a_shard_updating_the_shared_directory_never_deletes_another_shards_snapshots(
    project: pytest.Pytester,
) -> None:
    project.runpytest_subprocess(
        "--snapshot-update", "--store-durations", "--durations-path", "durations.json"
    ).assert_outcomes(passed=6)
    before = _snapshots(project.path / "snapshots")
    passed = 0
    for group in (1, 2):
        result = _shard(project, group, "--snapshot-update")
        passed += result.parseoutcomes()["passed"]
        assert result.parseoutcomes()["deselected"] > 0
        assert "unused" not in result.stdout.str()
        assert "deleted" not in result.stdout.str()
        assert _snapshots(project.path / "snapshots") == before
    assert passed == 6
