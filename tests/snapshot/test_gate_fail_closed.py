"""The gate fails closed: every ``*.txt`` under either directory is read, or it exits 2."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from hookproof.cli import main
from hookproof.errors import InvalidInputError
from hookproof.gate import compare_directories
from hookproof.snapshot import SnapshotFormatError, parse, render
from tests.snapshot.test_render_and_diff import _request, _schema

GUEST = "suite/test_a/guest.txt"
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")


def _snapshot_text(**changes: object) -> str:
    return render(_request(**changes))


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    baseline, candidate = tmp_path / "pinned", tmp_path / "latest"
    for directory in (baseline, candidate):
        (directory / "suite/test_a").mkdir(parents=True)
        (directory / GUEST).write_text(_snapshot_text(), encoding="utf-8")
    return baseline, candidate


def _gate_subprocess(baseline: Path, candidate: Path) -> subprocess.CompletedProcess[str]:
    """The CLI in its own process, so a gate that blocks on a read fails instead of hanging."""
    return subprocess.run(
        [sys.executable, "-m", "hookproof", "gate", str(baseline), str(candidate)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_baseline_with_a_bom_is_not_dropped(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    baseline, candidate = dirs
    (baseline / GUEST).write_bytes(b"\xef\xbb\xbf" + _snapshot_text().encode())
    tools = (*_request().tools, _schema("delete_customer"))
    (candidate / GUEST).write_text(_snapshot_text(tools=tools), encoding="utf-8")
    assert main(["gate", str(baseline), str(candidate)]) == 2
    captured = capsys.readouterr()
    assert "new snapshot" not in captured.out
    assert f"{baseline / GUEST}: starts with a byte-order mark" in captured.err


BROKEN = {
    "bom": (b"\xef\xbb\xbf" + _snapshot_text().encode(), "starts with a byte-order mark"),
    "unknown header": (b"hello, I am a note\n", "its first line is 'hello, I am a note'"),
    "other version": (
        _snapshot_text().replace("format 1", "format 7", 1).encode(),
        "it was written in format 7",
    ),
    "not utf-8": (_snapshot_text().encode().replace(b"careful", b"caref\xffl"), "is not UTF-8"),
    "truncated": (
        _snapshot_text().split("  search\n")[0].encode(),
        "it ends after line 37, where a line starting with '  ' should follow (is it truncated?)",
    ),
    "cut mid-line": (
        _snapshot_text().encode()[:200],
        "it ends after line 9, where a blank line should follow",
    ),
    "bad tool count": (
        _snapshot_text().replace("tools: 2", "tools: two").encode(),
        "the tool count 'two' is not a number",
    ),
    "empty": (b"", "it is empty (0 bytes), so it holds no reviewed request"),
    "blank": (b"\n  \n", "it holds only whitespace (4 characters), no reviewed request"),
    "cut in the header": (
        b"hookproof final req",
        "it ends inside its header ('hookproof final req')",
    ),
}


@pytest.mark.parametrize("side", ["baseline", "candidate"])
@pytest.mark.parametrize("case", sorted(BROKEN))
def test_an_unreadable_snapshot_stops_the_gate(
    case: str, side: str, dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    data, reason = BROKEN[case]
    bad = dirs[side == "candidate"] / "suite/test_b/new.txt"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(data)
    with pytest.raises(InvalidInputError, match="1 file in the snapshot directories") as caught:
        compare_directories(*dirs)
    assert f"{bad}: {reason}" in str(caught.value)
    assert main(["gate", str(dirs[0]), str(dirs[1])]) == 2
    assert str(bad) in capsys.readouterr().err


def test_an_unreadable_candidate_is_not_called_missing(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    (dirs[1] / GUEST).write_bytes(b"\xff\xfe garbage")
    assert main(["gate", str(dirs[0]), str(dirs[1])]) == 2
    captured = capsys.readouterr()
    assert "missing from the candidate" not in captured.out + captured.err
    assert f"{dirs[1] / GUEST}: is not UTF-8 text (byte 0 is 0xff)" in captured.err


def test_every_unreadable_file_is_reported_at_once(dirs: tuple[Path, Path]) -> None:
    baseline, candidate = dirs
    (baseline / "notes.txt").write_text("release notes\n")
    (candidate / GUEST).write_bytes(b"\xef\xbb\xbf" + _snapshot_text().encode())
    (candidate / "suite/test_z.txt").mkdir()
    with pytest.raises(InvalidInputError) as caught:
        compare_directories(baseline, candidate)
    message = str(caught.value)
    assert message.startswith("hookproof: 3 files in the snapshot directories cannot be read")
    assert f"{baseline / 'notes.txt'}: its first line is 'release notes'" in message
    assert f"{candidate / GUEST}: starts with a byte-order mark" in message
    assert f"{candidate / 'suite/test_z.txt'}: is a directory, not a regular file" in message
    assert "The gate fails closed" in message
    assert "pytest --snapshot-update" in message


def test_a_directory_named_txt_exits_2(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    (dirs[0] / "suite/test_a/admin.txt").mkdir()
    assert main(["gate", str(dirs[0]), str(dirs[1])]) == 2
    assert "admin.txt: is a directory, not a regular file" in capsys.readouterr().err


@needs_fifo
def test_a_fifo_named_txt_is_reported_without_being_opened(dirs: tuple[Path, Path]) -> None:
    fifo = dirs[1] / "suite/test_a/admin.txt"
    os.mkfifo(fifo)
    result = _gate_subprocess(*dirs)
    assert result.returncode == 2
    assert f"{fifo}: is a named pipe (FIFO), not a regular file" in result.stderr


def test_non_snapshot_names_are_never_read(dirs: tuple[Path, Path]) -> None:
    for directory in dirs:
        (directory / "README.md").write_bytes(b"\xff not text")
        (directory / ".gitkeep").write_bytes(b"")
        (directory / "suite/notes.md").write_text("hello\n")
    report = compare_directories(*dirs)
    assert [item.path for item in report.files] == [GUEST]
    assert report.exit_code == 0


def test_only_a_readme_is_still_no_snapshot_at_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("pinned", "latest"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "README.md").write_text("# snapshots\n")
    assert main(["gate", str(tmp_path / "pinned"), str(tmp_path / "latest")]) == 2
    assert "neither" in capsys.readouterr().err


def test_windows_line_endings_are_read_as_pytest_reads_them(dirs: tuple[Path, Path]) -> None:
    baseline, candidate = dirs
    crlf = _snapshot_text().replace("\n", "\r\n").encode()
    (baseline / GUEST).write_bytes(crlf)  # a core.autocrlf checkout of the reviewed files
    with open(baseline / GUEST, encoding="utf-8") as stream:  # as syrupy reads a snapshot
        assert parse(stream.read()) == parse(_snapshot_text())
    assert compare_directories(*dirs).files[0].status == "unchanged"
    (candidate / GUEST).write_text(_snapshot_text(tools=_request().tools[:1]), encoding="utf-8")
    changes = [change.describe() for change in compare_directories(*dirs).files[0].changes]
    assert changes == ["BREAKING tool export: removed"]


def _empty(directory: Path) -> None:
    (directory / GUEST).unlink()
    (directory / "README.md").write_text("# snapshots\n")


def test_an_empty_baseline_stops_the_gate(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _empty(dirs[0])
    with pytest.raises(InvalidInputError, match="the baseline directory") as caught:
        compare_directories(*dirs)
    assert "--allow-empty-baseline" in str(caught.value)
    assert main(["gate", str(dirs[0]), str(dirs[1])]) == 2
    captured = capsys.readouterr()
    assert "PASSED" not in captured.out
    assert f"the baseline directory {str(dirs[0])!r} holds no hookproof snapshot" in captured.err


def test_an_empty_baseline_is_accepted_when_asked(
    dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _empty(dirs[0])
    report = compare_directories(*dirs, allow_empty_baseline=True)
    assert [(item.path, item.status) for item in report.files] == [(GUEST, "added")]
    assert main(["gate", str(dirs[0]), str(dirs[1]), "--allow-empty-baseline"]) == 0
    assert "new snapshot (not in the baseline)" in capsys.readouterr().out


@pytest.mark.parametrize("allow", [[], ["--allow-empty-baseline"]])
def test_an_empty_candidate_stops_the_gate(
    allow: list[str], dirs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _empty(dirs[1])
    assert main(["gate", str(dirs[0]), str(dirs[1]), *allow]) == 2
    captured = capsys.readouterr()
    assert "missing from the candidate" not in captured.out
    assert f"the candidate directory {str(dirs[1])!r} holds no hookproof snapshot" in captured.err


# -- symbolic links: followed to regular files only ----------------------------------------


def _targets(directory: Path) -> Path:
    """A folder inside the snapshot directory for link targets (a link out of it is refused)."""
    folder = directory / "targets"
    folder.mkdir(exist_ok=True)
    return folder


def _link_to_snapshot(directory: Path, link: Path) -> None:
    target = _targets(directory) / "elsewhere.snap"
    target.write_text(_snapshot_text(tools=_request().tools[:1]), encoding="utf-8")
    link.symlink_to(target)


def _link_to_directory(directory: Path, link: Path) -> None:
    target = _targets(directory) / "more"
    (target / "test_c").mkdir(parents=True)
    (target / "test_c/x.txt").write_text(_snapshot_text(), encoding="utf-8")
    link.symlink_to(target, target_is_directory=True)


def _dangling_link(directory: Path, link: Path) -> None:
    link.symlink_to(_targets(directory) / "no-such-file.txt")


def _link_to_fifo(directory: Path, link: Path) -> None:
    fifo = _targets(directory) / "pipe"
    os.mkfifo(fifo)
    link.symlink_to(fifo)


def test_a_link_to_a_regular_snapshot_is_followed(dirs: tuple[Path, Path]) -> None:
    link = dirs[1] / GUEST
    link.unlink()
    _link_to_snapshot(dirs[1], link)
    report = compare_directories(*dirs)
    assert report.files[0].path == GUEST
    assert "BREAKING tool export: removed" in [c.describe() for c in report.files[0].changes]


@pytest.mark.parametrize(
    ("make", "name", "reason"),
    [
        (_link_to_directory, "suite/linked", "is a symbolic link to a directory"),
        (_link_to_directory, "suite/linked.txt", "is a symbolic link to a directory"),
        (_dangling_link, "suite/test_a/admin.txt", "is a symbolic link to a missing file"),
        pytest.param(
            _link_to_fifo,
            "suite/test_a/admin.txt",
            "is a symbolic link to a named pipe (FIFO), not a regular file",
            marks=needs_fifo,
        ),
    ],
    ids=["directory", "directory-named-txt", "dangling", "fifo"],
)
def test_other_links_stop_the_gate(
    make: Callable[[Path, Path], None], name: str, reason: str, dirs: tuple[Path, Path]
) -> None:
    link = dirs[1] / name
    make(dirs[1], link)
    result = _gate_subprocess(*dirs)
    assert result.returncode == 2
    assert f"{link}: {reason}" in result.stderr


def test_a_link_out_of_the_directory_is_not_read(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    # A pull request could commit a link to the CI machine's environment or keys: the gate
    # must neither read it nor quote it in its log.
    outside = tmp_path / "environ"
    outside.write_text("FAKE_TOKEN=abc123notredacted\n", encoding="utf-8")
    link = dirs[1] / "suite/test_a/leak.txt"
    link.symlink_to(outside)
    result = _gate_subprocess(*dirs)
    assert result.returncode == 2
    assert f"{link}: resolves to {str(outside.resolve())!r}, outside" in result.stderr
    assert "FAKE_TOKEN" not in result.stdout + result.stderr


def test_a_linked_directory_argument_is_read(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    link = tmp_path / "latest-link"
    link.symlink_to(dirs[1], target_is_directory=True)
    assert compare_directories(dirs[0], link).exit_code == 0


def test_a_file_that_cannot_be_opened_is_reported(
    dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(path: Path, limit: int = -1) -> bytes:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr("hookproof.gate._load.read_regular_file", refuse)
    with pytest.raises(InvalidInputError) as caught:
        compare_directories(*dirs)
    assert f"{dirs[0] / GUEST}: cannot be read (Permission denied)" in str(caught.value)


# -- parse: any damage is a SnapshotFormatError, never another exception ---------------------


def test_every_truncation_of_a_snapshot_is_a_format_error_or_still_whole() -> None:
    text = _snapshot_text()
    whole = parse(text)
    errors = 0
    for end in range(len(text)):
        try:
            assert parse(text[:end]) == whole
        except SnapshotFormatError:
            errors += 1
    assert errors == len(text) - 1  # only the cut of the final newline leaves it whole


def test_parameters_that_are_not_an_object_are_a_format_error() -> None:
    text = _snapshot_text()
    start = text.index("    parameters:\n") + len("    parameters:\n")
    damaged = text[:start] + "    | [1]\n" + text[text.index("  search\n") :]
    with pytest.raises(SnapshotFormatError, match="tool 'export' parameters are not a JSON object"):
        parse(damaged)


def test_odd_required_lists_are_compared_without_crashing(dirs: tuple[Path, Path]) -> None:
    odd = _snapshot_text().replace('|     "customer"\n', "|     {}\n", 1)
    (dirs[1] / GUEST).write_text(odd, encoding="utf-8")
    report = compare_directories(*dirs)
    changes = [change.describe() for change in report.files[0].changes]
    assert changes == [
        "BREAKING tool export: parameter 'customer' is now optional",
        "REVIEW   tool export: required list changed",  # the {} it now lists, which names nothing
    ]
