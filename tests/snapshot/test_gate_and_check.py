"""``hookproof gate`` and ``hookproof check``: exit codes, formats, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookproof.cli import main
from hookproof.models import FinalRequest
from hookproof.snapshot import render
from tests.snapshot.test_render_and_diff import _request, _schema


def _write(directory: Path, name: str, request: FinalRequest) -> None:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(request), encoding="utf-8")


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    baseline, candidate = tmp_path / "pinned", tmp_path / "latest"
    for directory in (baseline, candidate):
        _write(directory, "suite/test_a/guest.txt", _request())
        _write(directory, "suite/test_a/admin.txt", _request(tool_choice="any"))
    (baseline / "README.md").write_text("not a snapshot\n")
    (baseline / ".gitkeep").write_text("")
    return baseline, candidate


def _gate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["gate", *args])
    return code, capsys.readouterr().out


def test_identical_directories_pass(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _gate(capsys, str(dirs[0]), str(dirs[1]))
    assert code == 0
    assert "2 snapshots, 2 unchanged" in out
    assert out.rstrip().endswith("PASSED: no change of a failing class (BREAKING, SECURITY)")


def test_review_change_passes_by_default_and_fails_when_asked(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _write(dirs[1], "suite/test_a/guest.txt", _request(tool_choice="none"))
    code, out = _gate(capsys, str(dirs[0]), str(dirs[1]))
    assert code == 0
    assert "REVIEW   tool_choice: changed\n  in suite/test_a/guest.txt" in out
    code, _ = _gate(capsys, str(dirs[0]), str(dirs[1]), "--fail-on", "review")
    assert code == 1


def test_security_and_breaking_changes_fail(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    old = _request()
    _write(dirs[1], "suite/test_a/guest.txt", _request(tools=(old.tools[0], _schema("delete_all"))))
    code, out = _gate(capsys, str(dirs[0]), str(dirs[1]))
    assert code == 1
    assert "BREAKING tool export: removed" in out
    assert "SECURITY tool delete_all: now visible to the model" in out
    assert "FAILED: 2 change(s) of a failing class" in out
    assert _gate(capsys, str(dirs[0]), str(dirs[1]), "--fail-on", "none")[0] == 0


def test_missing_and_new_snapshots(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    (dirs[1] / "suite/test_a/admin.txt").unlink()
    _write(dirs[1], "suite/test_b/new.txt", _request())
    code, out = _gate(capsys, str(dirs[0]), str(dirs[1]))
    assert code == 1
    assert "BREAKING snapshot: missing from the candidate\n  in suite/test_a/admin.txt" in out
    assert "REVIEW   snapshot: new snapshot (not in the baseline)\n  in suite/test_b/new.txt" in out


def test_markdown_is_a_pull_request_comment(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _write(dirs[1], "suite/test_a/guest.txt", _request(tools=_request().tools[:1]))
    code, out = _gate(capsys, str(dirs[0]), str(dirs[1]), "--format", "markdown")
    assert code == 1
    assert out.startswith("### ❌ hookproof gate\n")
    assert "<summary><b>BREAKING</b> tool export: removed</summary>" in out
    assert "in <code>suite/test_a/guest.txt</code>" in out


def test_json_is_machine_readable(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _write(dirs[1], "suite/test_a/guest.txt", _request(tool_choice="none"))
    code, out = _gate(capsys, str(dirs[0]), str(dirs[1]), "--format", "json")
    data = json.loads(out)
    assert code == 0
    assert data["passed"] is True
    assert data["counts"] == {"BREAKING": 0, "SECURITY": 0, "REVIEW": 1, "COSMETIC": 0}
    changed = [f for f in data["files"] if f["status"] == "changed"]
    assert changed[0]["changes"][0]["subject"] == "tool_choice"


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("missing-dir", "does not exist"),
        ("bad-fail-on", "unknown classes ['LOUD']"),
        ("old-format", "format 0"),
        ("empty", "neither"),
    ],
)
def test_bad_input_exits_2_with_a_reason(
    setup: str,
    message: str,
    tmp_path: Path,
    dirs: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    baseline, candidate = str(dirs[0]), str(dirs[1])
    extra: list[str] = []
    if setup == "missing-dir":
        candidate = str(tmp_path / "nope")
    elif setup == "bad-fail-on":
        extra = ["--fail-on", "breaking,loud"]
    elif setup == "old-format":
        path = dirs[1] / "suite/test_a/guest.txt"
        path.write_text(path.read_text().replace("format 1", "format 0"))
    else:
        baseline = candidate = str(tmp_path / "empty")
        (tmp_path / "empty").mkdir()
    assert main(["gate", baseline, candidate, *extra]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.usefixtures("child_pytest")
def test_check_runs_suites_and_prints_a_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "contracts"
    suite.mkdir()
    (suite / "test_ok.py").write_text("def test_a():\n    pass\n\ndef test_b():\n    pass\n")
    (suite / "test_bad.py").write_text("def test_c():\n    assert False\n")
    code = main(["check", str(suite), "--pytest-args", "-p", "no:randomly"])
    out = capsys.readouterr().out
    assert code == 1
    assert "test_ok.py" in out
    lines = {
        line.split()[0].rsplit("/", 1)[-1]: line.split()[1:] for line in out.splitlines()[2:-1]
    }
    assert lines["test_ok.py"] == ["2", "0", "0", "0"]
    assert lines["test_bad.py"] == ["0", "1", "0", "0"]
    assert lines["total"] == ["2", "1", "0", "0"]
    assert out.rstrip().endswith("contracts failed (pytest exit 1)")


@pytest.mark.slow
@pytest.mark.usefixtures("child_pytest")
def test_check_where_every_contract_was_skipped_is_not_a_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "contracts"
    suite.mkdir()
    skipped = "import pytest\n\n@pytest.mark.skip(reason='no extra')\ndef test_a():\n    pass\n"
    (suite / "test_skipped.py").write_text(skipped)
    assert main(["check", str(suite), "--pytest-args", "-p", "no:randomly"]) == 2
    out = capsys.readouterr().out
    assert "all contracts hold" not in out
    assert out.rstrip().endswith("no contract ran (none collected, or every one skipped)")


@pytest.mark.slow
@pytest.mark.usefixtures("child_pytest")
def test_check_without_paths_runs_the_bundled_suite_outside_a_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 0
    out = capsys.readouterr().out
    assert "examples/contracts/test_support_agent.py" in out
    assert out.rstrip().endswith("all contracts hold")
    assert list(tmp_path.iterdir()) in ([], [tmp_path / ".hypothesis"])


@pytest.mark.slow
@pytest.mark.usefixtures("child_pytest")
def test_check_names_the_bundled_suite_by_its_package_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Installed, the suite lives outside the project: its rows read as the package's files,
    not as an absolute or ``../..`` path into the installation."""
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--pytest-args", "-k", "guest"]) == 0
    rows = [line.split()[0] for line in capsys.readouterr().out.splitlines()[2:-2]]
    assert rows == [
        "hookproof/examples/contracts/test_article_contracts.py",
        "hookproof/examples/contracts/test_eino_lifecycle.py",
        "hookproof/examples/contracts/test_support_agent.py",
    ]


def test_check_with_missing_path_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "no/such/dir"]) == 2
    assert "do not exist" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.usefixtures("child_pytest")
def test_gate_bad_bytes_and_check_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for side in ("old", "new"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "s.txt").write_text(render(FinalRequest(model="m")), encoding="utf-8")
    (tmp_path / "new" / "notes.md").write_bytes(b"\xff\xfe")  # only *.txt is a snapshot
    assert main(["gate", str(tmp_path / "old"), str(tmp_path / "new")]) == 0
    (tmp_path / "new" / "s.txt").write_bytes(b"hookproof final request, format 1\n\xff")
    assert main(["gate", str(tmp_path / "old"), str(tmp_path / "new")]) == 2
    assert "s.txt: is not UTF-8 text (byte 34 is 0xff)" in capsys.readouterr().err
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_ok.py").write_text("def test_ok():\n    pass\n")
    assert main(["check", str(suite), "--pytest-args", "--no-such-flag"]) == 2
