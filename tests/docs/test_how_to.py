"""Each how-to page of docs/how-to/ that this suite owns runs as written (see
tests/docs/pages.py for how a page is read)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.pages import follow, read_page


@pytest.mark.slow
def test_the_review_page_runs_as_written(tmp_path: Path) -> None:
    follow(read_page("how-to/review-snapshot-change.md"), tmp_path)
    reviewed = tmp_path / "snapshots/tests/test_greeter"
    assert sorted(path.name for path in reviewed.iterdir()) == [
        "test_greeting_request[guest].txt",
        "test_greeting_request[member].txt",
    ]
    member = (reviewed / "test_greeting_request[member].txt").read_text("utf-8")
    assert "You greet visitors warmly." in member


@pytest.mark.slow
def test_the_record_and_replay_page_runs_as_written(tmp_path: Path) -> None:
    pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run this")
    follow(read_page("how-to/record-replay.md"), tmp_path)
    cassette = tmp_path / "recording/tests/test_geography/test_capital.json"
    assert "one short sentence" in cassette.read_text("utf-8")


@pytest.mark.slow
def test_the_shard_page_runs_as_written(tmp_path: Path) -> None:
    pytest.importorskip("pytest_split", reason="install hookproof[split] to run this")
    follow(read_page("how-to/shard-suite.md"), tmp_path)
    shards = [sorted(p.name for p in (tmp_path / f"shard-{i}").rglob("*.txt")) for i in (1, 2)]
    assert shards[0] and shards[1] and not set(shards[0]) & set(shards[1])
    assert len(shards[0]) + len(shards[1]) == 4  # every test in exactly one shard


@pytest.mark.slow
def test_the_fuzz_campaign_page_runs_as_written(tmp_path: Path) -> None:
    follow(read_page("how-to/fuzz-campaign.md"), tmp_path)
    assert (tmp_path / "fuzz-examples").is_dir(), "the campaign used the ini's database"


@pytest.mark.slow
def test_the_contract_check_page_runs_as_written(tmp_path: Path) -> None:
    follow(read_page("how-to/write-contract-check.md"), tmp_path)
