"""hookproof gate over a real Eino upgrade: go/upgrade_example_test.go's trip planner,
snapshotted under Eino v0.8.13 and under v0.9.5, then gated through the CLI.

Each version gets its own copy of go/ (the repository's go.mod and go.sum stay as they are),
``go get github.com/cloudwego/eino@VERSION`` there, and the example's go test writes that
version's snapshots into its own directory. The copy leaves out Trace's handler side and the
other tests: it implements AfterAgent, a hook Eino added in v0.9.0, so it does not build
under v0.8.

What the gate finds (docs/concepts/go-eino.md tells it): BREAKING, every tool gone
from the second and third requests, because the example's budget handler returns a fresh
ChatModelAgentState holding only the messages (the v0.8 state had no other field; v0.9's
ToolInfos, left nil, reaches the model as an empty tool list); REVIEW, Eino's message id
appearing on every assistant and tool message. The first requests are unchanged.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

import pytest

from tests.go.toolchain import GO_MODULE, run_go

GO_PAGE = GO_MODULE.parent / "docs" / "concepts" / "go-eino.md"

BASELINE_EINO = "v0.8.13"  # the newest v0.8 release the module proxy served (v0.8.14 refused)
CANDIDATE_EINO = "v0.9.5"  # the newest checked (go/eino-latest.mod; go.mod requires v0.9.0)
EXAMPLE = "TestTripPlannerRequests"
EXAMPLE_FILE = "upgrade_example_test.go"
# the handler side of Trace (AfterAgent, ChatModelAgentState.ToolInfos arrived in v0.9.0)
NEEDS_EINO_0_9 = frozenset({"trace_handler.go", "trace_model.go", "defines.go", "instrument.go"})
GO_TIMEOUT_SECONDS = 600  # a cold build of Eino takes about a minute on two cores
SNAPSHOTS = sorted(
    f"{EXAMPLE}/{mode}/{turn}_request.txt"
    for mode in ("generate", "stream")
    for turn in ("first", "second", "final")
)
DROPPED_TOOLS = ("book_hotel", "get_weather", "search_flights")
MESSAGE_ID = '"_eino_msg_id": "<uuid-'


def unavailable(reason: str) -> NoReturn:
    """A skip saying what did not run; under CI (CI=true) a failure, so CI cannot pass
    without gating the upgrade."""
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{reason}; CI must run the Eino upgrade gate (is the module proxy reachable?)")
    pytest.skip(f"{reason}: the Eino upgrade gate did not run")


def go(
    module: Path, *args: str, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``go ARGS`` in a copy of the module, which go may rewrite (-mod=mod)."""
    flags = {"GOFLAGS": "-mod=mod -buildvcs=false", **(env or {})}
    return run_go(*args, env=flags, module=module, timeout=GO_TIMEOUT_SECONDS)


def copy_module(destination: Path) -> Path:
    """go/'s module files and library sources that build under Eino v0.8, and the example."""
    destination.mkdir(parents=True)
    for source in GO_MODULE.iterdir():
        library = source.suffix == ".go" and not source.name.endswith("_test.go")
        if source.name in ("go.mod", "go.sum") or (library and source.name not in NEEDS_EINO_0_9):
            shutil.copy2(source, destination / source.name)
    shutil.copy2(GO_MODULE / EXAMPLE_FILE, destination / EXAMPLE_FILE)
    return destination


def use_eino(module: Path, version: str) -> None:
    fetched = go(module, "get", f"github.com/cloudwego/eino@{version}")
    if fetched.returncode != 0:
        unavailable(f"could not fetch Eino {version} (go get: {fetched.stderr.strip()})")
    listed = go(module, "list", "-m", "github.com/cloudwego/eino")
    assert listed.stdout.split() == ["github.com/cloudwego/eino", version], listed.stderr


def snapshot_under(version: str, work: Path) -> Path:
    """The example's snapshots under Eino ``version``, in their own directory."""
    module = copy_module(work / f"module-{version}")
    use_eino(module, version)
    snapshots = work / f"snapshots-{version}"
    env = {"HOOKPROOF_SNAPSHOT_DIR": str(snapshots), "HOOKPROOF_SNAPSHOT_UPDATE": "1"}
    ran = go(module, "test", "-count=1", "-run", f"^{EXAMPLE}$", ".", env=env)
    assert ran.returncode == 0, (
        f"the example failed under Eino {version}:\n{ran.stdout}{ran.stderr}"
    )
    return snapshots


def snapshot_names(directory: Path) -> list[str]:
    return sorted(path.relative_to(directory).as_posix() for path in directory.rglob("*.txt"))


def gate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hookproof", "gate", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )


def findings_of(report: Mapping[str, Any], kind: str) -> list[Mapping[str, Any]]:
    return [finding for finding in report["findings"] if kind in finding["classes"]]


@pytest.mark.slow  # two builds of Eino, cold about a minute each
def test_the_gate_finds_what_eino_v0_9_changed_in_the_trip_planners_requests(
    tmp_path: Path,
) -> None:
    baseline = snapshot_under(BASELINE_EINO, tmp_path)
    candidate = snapshot_under(CANDIDATE_EINO, tmp_path)
    assert snapshot_names(baseline) == snapshot_names(candidate) == SNAPSHOTS

    text = gate(str(baseline), str(candidate))
    assert text.returncode == 1, text.stdout + text.stderr
    for tool in DROPPED_TOOLS:
        assert f"BREAKING tool {tool}: removed" in text.stdout
    assert "REVIEW   messages: message metadata changed" in text.stdout
    summary = text.stdout.splitlines()[-2]
    assert summary.startswith("6 snapshots, 2 unchanged; BREAKING 12, SECURITY 0, REVIEW ")
    assert f"\n{summary}\n" in GO_PAGE.read_text(encoding="utf-8"), "the Go page quotes it"

    report = json.loads(gate("--format", "json", str(baseline), str(candidate)).stdout)
    unchanged = {item["path"] for item in report["files"] if item["status"] == "unchanged"}
    assert unchanged == {name for name in SNAPSHOTS if name.endswith("first_request.txt")}
    later = sorted(name for name in SNAPSHOTS if name not in unchanged)
    breaking = findings_of(report, "BREAKING")
    assert sorted(finding["subject"] for finding in breaking) == [
        f"tool {tool}" for tool in DROPPED_TOOLS
    ]
    assert all(sorted(finding["snapshots"]) == later for finding in breaking)
    reviewed = [
        change for finding in findings_of(report, "REVIEW") for change in finding["changes"]
    ]
    assert reviewed and all(
        (change["subject"], change["what"]) == ("messages", "message metadata changed")
        and MESSAGE_ID not in change["before"]
        and MESSAGE_ID in change["after"]
        for change in reviewed
    )
    assert report["counts"]["SECURITY"] == report["counts"]["COSMETIC"] == 0


def test_an_eino_version_that_cannot_be_fetched_skips_locally_and_fails_in_ci(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    refused = subprocess.CompletedProcess(["go"], 1, "", "403 Forbidden")
    monkeypatch.setattr(sys.modules[__name__], "go", lambda *args, **kwargs: refused)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"could not fetch Eino v0\.8\.13.*403"):
        use_eino(tmp_path, BASELINE_EINO)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run the Eino upgrade gate"):
        use_eino(tmp_path, BASELINE_EINO)
