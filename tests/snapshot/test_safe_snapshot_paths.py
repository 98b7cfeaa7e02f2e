"""Snapshots, pending snapshots and ``hookproof review`` on hostile trees (issue 28): a link
out of the rootdir at any level is never written (or read) through, a FIFO or a directory
in a snapshot's place is an error and never a hang, and a snapshot cut short inside its
provenance section is a format error, not a file that compares equal."""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hookproof.cli import main
from hookproof.errors import SnapshotFormatError
from hookproof.messages import SystemMessage, UserMessage
from hookproof.provenance import Provenance, ToolOrigin
from hookproof.requests import FinalRequest
from hookproof.snapshot import diff, parse, render
from hookproof.tools import ToolSchema

PROJECT_TEST = """
from pathlib import Path
from hookproof.messages import UserMessage
from hookproof.models import FinalRequest

def test_request(hookproof_snapshot):
    text = (Path(__file__).parent / "prompt.txt").read_text()
    assert FinalRequest(model="m", messages=(UserMessage(text),)) == hookproof_snapshot
"""
SNAPSHOT = Path("snapshots") / "test_app" / "test_request.txt"


def _within(seconds: float, action: Callable[[], Any]) -> Any:
    outcome: list[Any] = []
    worker = threading.Thread(target=lambda: outcome.append(action()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert outcome, f"hung for {seconds}s"
    return outcome[0]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_app=PROJECT_TEST)
    (pytester.path / "prompt.txt").write_text("hi")
    return pytester


@pytest.fixture
def outside(pytester: pytest.Pytester) -> Path:
    folder = pytester.path.parent / f"{pytester.path.name}-outside"
    folder.mkdir()
    return folder


def _linked(project: pytest.Pytester, link: str, target: Path) -> None:
    path = project.path / link
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)


LINKS = ["snapshots/test_app", "snapshots/test_app/test_request.txt"]


@pytest.mark.parametrize("link", LINKS)
def test_snapshot_update_never_writes_through_a_link_out_of_the_rootdir(
    project: pytest.Pytester, outside: Path, link: str
) -> None:
    target = outside if link.endswith("test_app") else outside / "test_request.txt"
    _linked(project, link, target)
    result = project.runpytest_inprocess("-p", "no:cacheprovider", "--snapshot-update")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*UnsafePathError*resolves to*outside*"])
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("link", LINKS)
def test_a_pending_snapshot_is_never_written_through_a_link_out_of_the_rootdir(
    project: pytest.Pytester, outside: Path, link: str
) -> None:
    project.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    reviewed = (project.path / SNAPSHOT).read_text()
    (project.path / SNAPSHOT).unlink()
    (project.path / SNAPSHOT.parent).rmdir()
    if link.endswith("test_app"):
        (outside / "test_request.txt").write_text(reviewed)
        target = outside
    else:
        (project.path / SNAPSHOT.parent).mkdir()
        target = outside / "test_request.txt"
        target.write_text(reviewed)
    _linked(project, link, target)
    (project.path / "prompt.txt").write_text("changed")
    before = sorted(path.name for path in outside.iterdir())
    result = project.runpytest_inprocess("-p", "no:cacheprovider", "--hookproof-pending")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*UnsafePathError*resolves to*outside*"])
    assert sorted(path.name for path in outside.iterdir()) == before


SPECIAL = {
    "a FIFO": (os.mkfifo, "is a named pipe (FIFO), not a regular file"),
    "a directory": (Path.mkdir, "is a directory, not a regular file"),
    "a link to /dev/zero": (
        lambda path: Path(path).symlink_to("/dev/zero"),
        "resolves to '/dev/zero', outside",
    ),
}


@pytest.mark.parametrize(("make", "problem"), SPECIAL.values(), ids=SPECIAL)
def test_a_snapshot_that_is_no_regular_file_fails_the_test_without_hanging(
    project: pytest.Pytester, make: Callable[[Path], None], problem: str
) -> None:
    (project.path / SNAPSHOT.parent).mkdir(parents=True)
    make(project.path / SNAPSHOT)
    result = _within(60, lambda: project.runpytest_inprocess("-p", "no:cacheprovider"))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*{problem}*"])


# -- hookproof review ------------------------------------------------------------------------


def _snapshot_text(prompt: str) -> str:
    return render(FinalRequest(model="m", messages=(UserMessage(prompt),)))


def _review(directory: Path, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.stdout", out)
        patch.setattr("sys.stdin", io.StringIO(""))
        code = _within(30, lambda: main(["review", str(directory), *args]))
    return code, out.getvalue()


def _reviewed_as(make: Callable[[Path], None]) -> Callable[[Path], None]:
    def arrange(folder: Path) -> None:
        (folder / "t.txt.pending").write_text(_snapshot_text("new"))
        make(folder / "t.txt")

    return arrange


def _pending_as(make: Callable[[Path], None]) -> Callable[[Path], None]:
    def arrange(folder: Path) -> None:
        (folder / "t.txt").write_text(_snapshot_text("old"))
        make(folder / "t.txt.pending")

    return arrange


def _link_out(path: Path) -> None:
    target = path.parent.parent.parent / "outside.txt"
    target.write_text(_snapshot_text("outside"))
    path.symlink_to(target)


REVIEW_CASES = {
    "reviewed is a FIFO": _reviewed_as(os.mkfifo),
    "reviewed is a directory": _reviewed_as(Path.mkdir),
    "reviewed links out": _reviewed_as(_link_out),
    "pending is a FIFO": _pending_as(os.mkfifo),
    "pending is a directory": _pending_as(Path.mkdir),
    "pending links out": _pending_as(_link_out),
    "pending links to /dev/zero": _pending_as(lambda path: path.symlink_to("/dev/zero")),
}


@pytest.mark.parametrize("arrange", REVIEW_CASES.values(), ids=REVIEW_CASES)
def test_review_accept_all_refuses_what_it_cannot_read_without_hanging(
    tmp_path: Path, arrange: Callable[[Path], None]
) -> None:
    folder = tmp_path / "project" / "snapshots"
    folder.mkdir(parents=True)
    arrange(folder)
    kinds = {path.name: (path.is_symlink(), path.is_dir()) for path in folder.iterdir()}
    outside = tmp_path / "outside.txt"
    before = outside.read_text() if outside.exists() else None
    code, out = _review(folder, "--accept-all")
    assert code == 1
    assert "-> refused" in out
    assert "1 refused; 1 left pending." in out
    assert {path.name: (path.is_symlink(), path.is_dir()) for path in folder.iterdir()} == kinds
    assert (outside.read_text() if outside.exists() else None) == before


def test_review_reject_all_removes_a_fifo_but_never_a_directory(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "a.txt.pending")
    (tmp_path / "b.txt.pending").mkdir()
    code, out = _review(tmp_path, "--reject-all")
    assert code == 1
    assert "0 accepted, 1 rejected, 0 skipped, 1 refused; 1 left pending." in out
    assert [path.name for path in tmp_path.iterdir()] == ["b.txt.pending"]


# -- a snapshot cut short inside its provenance section ---------------------------------------


def _with_provenance() -> str:
    tools = (ToolSchema(name="search", description="Search."), ToolSchema(name="write"))
    origins = (ToolOrigin("search", ("registered by agent",)), ToolOrigin("write", ("added by X",)))
    final = FinalRequest(
        model="m", system_message=SystemMessage("Be brief."), tools=tools
    ).with_provenance(Provenance(tools=origins, system=("agent",)))
    return render(final)


def test_every_cut_inside_the_provenance_section_is_an_error_or_a_reported_change() -> None:
    """A cut mid-line or before a line's content is a format error; a cut between whole
    lines leaves a shorter history, which the diff reports (never "no change")."""
    text = _with_provenance()
    start = text.index("\n\nprovenance:\n")
    errors = 0
    for end in range(start, len(text)):
        try:
            changes = diff(text, text[:end]).changes
        except SnapshotFormatError:
            errors += 1
        else:
            assert changes, f"the cut at {end - len(text)} reads as no change"
    assert errors == len(text) - start - 2  # all but the two cuts after a whole tool line
    assert diff(text, text).changes == ()


@pytest.mark.parametrize(
    ("cut", "problem"),
    [
        (lambda text: text[: text.index("\n\nprovenance:") + 1], "ends before its provenance"),
        (lambda text: text[: text.index("provenance:\n") + 12], "provenance section is empty"),
        (lambda text: text[:-4], "has no line break: truncated?"),
    ],
    ids=["before the section", "after its title", "inside its last line"],
)
def test_a_cut_provenance_section_says_it_was_cut(cut: Callable[[str], str], problem: str) -> None:
    with pytest.raises(SnapshotFormatError, match=problem):
        parse(cut(_with_provenance()))


# -- the gate's report and inputs ---------------------------------------------------------------


def _gate_dirs(tmp_path: Path) -> tuple[Path, Path]:
    old, new = tmp_path / "old", tmp_path / "new"
    for folder, prompt in ((old, "old"), (new, "new")):
        folder.mkdir()
        (folder / "t.txt").write_text(_snapshot_text(prompt))
    return old, new


def test_a_gate_report_written_over_a_fifo_replaces_it_without_hanging(tmp_path: Path) -> None:
    old, new = _gate_dirs(tmp_path)
    report = tmp_path / "report.txt"
    os.mkfifo(report)
    code = _within(30, lambda: main(["gate", str(old), str(new), "-o", str(report)]))
    assert code in (0, 1)
    assert report.is_file()
    assert "t.txt" in report.read_text()


def test_a_gate_input_over_the_size_cap_is_unreadable_without_being_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = _gate_dirs(tmp_path)
    with (new / "t.txt").open("wb") as stream:
        stream.truncate(65 * 1024 * 1024)
    assert main(["gate", str(old), str(new)]) == 2
    assert "is larger than 67108864 bytes" in capsys.readouterr().err
