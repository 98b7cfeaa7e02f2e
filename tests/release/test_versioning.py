"""docs/reference/versioning.md states the snapshot and cassette format versions hookproof
writes and reads: each statement is checked against the code (the constants, and which
versions the readers accept, tried one by one) and against the Go gate's reader."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hookproof import recording, snapshot
from hookproof.errors import CassetteFormatError, SnapshotFormatError

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs/reference/versioning.md"
SNAPSHOT = (
    REPO / "snapshots/contracts/test_eino_lifecycle/test_eino_final_request_per_role[admin].txt"
)
TRIED = range(0, 8)


def stated(kind: str, text: str | None = None) -> tuple[int, list[int]]:
    """The page's row for ``kind``: the format written and the formats read."""
    text = PAGE.read_text(encoding="utf-8") if text is None else text
    row = re.search(rf"^\| {kind} \(.*?\| format (\d+) \| formats? ([\d, ]+) \|$", text, re.M)
    assert row is not None, f"the page has no format row for {kind}"
    return int(row.group(1)), [int(v) for v in row.group(2).split(",")]


def _snapshot_reads(version: int) -> bool:
    """Whether a snapshot headed with ``version`` gets past the version check (its body,
    written in format 2, may then be refused for other reasons: that is not the question)."""
    header = "hookproof final request, format "
    text = SNAPSHOT.read_text(encoding="utf-8").replace(f"{header}2\n", f"{header}{version}\n", 1)
    try:
        snapshot.parse(text)
    except SnapshotFormatError as error:
        return "it was written in format" not in error.problem
    return True


def _cassette_reads(version: int, tmp_path: Path) -> bool:
    path = tmp_path / f"v{version}.json"
    document = {"format": "hookproof cassette", "version": version, "exchanges": []}
    path.write_text(json.dumps(document), encoding="utf-8")
    try:
        recording.Cassette(path, record_mode="none")
    except CassetteFormatError as error:
        refused = f"it was written in format {version}, this hookproof reads"
        return refused not in str(error)
    return True


def test_the_snapshot_formats_stated_are_the_ones_written_and_read() -> None:
    written, read = stated("snapshot")
    assert written == snapshot.FORMAT_VERSION
    assert [v for v in TRIED if _snapshot_reads(v)] == read


def test_the_cassette_formats_stated_are_the_ones_written_and_read(tmp_path: Path) -> None:
    written, read = stated("cassette")
    assert written == recording.FORMAT_VERSION
    assert [v for v in TRIED if _cassette_reads(v, tmp_path)] == read


def test_the_go_gate_reads_the_formats_stated() -> None:
    _, read = stated("snapshot")
    go = (REPO / "go/gate_parse.go").read_text(encoding="utf-8")
    listed = ", ".join(map(str, read[:-1])) + f" and {read[-1]}"
    assert f"this hookproof reads formats {listed}" in go


def test_the_page_quotes_the_refusal_hookproof_gives() -> None:
    _, read = stated("snapshot")
    listed = ", ".join(map(str, read[:-1])) + f" and {read[-1]}"
    assert f"this hookproof reads formats {listed}" in PAGE.read_text(encoding="utf-8")
    with pytest.raises(SnapshotFormatError, match=f"this hookproof reads formats {listed}"):
        snapshot.parse("hookproof final request, format 99\n")


def test_a_page_stating_an_old_version_is_caught() -> None:
    page = PAGE.read_text(encoding="utf-8").replace(
        "| format 3 | formats 1, 2, 3 |", "| format 2 | formats 1, 2 |"
    )
    written, read = stated("snapshot", page)
    assert (written, read) == (2, [1, 2])
    assert written != snapshot.FORMAT_VERSION
