"""The oracle's verdict on small fixed inputs, its reviewed files, and the documentation's list.

The full runner (python -m tests.oracle.run_langchain) is what CI runs; these tests keep its
logic honest: an unlisted failure, a stale entry and a run that did not run each fail.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import re
import tarfile
from pathlib import Path
from typing import Any

import pytest

from tests.oracle import comparison, sources
from tests.oracle.comparison import Differences, compare

REPO = Path(__file__).parent.parent.parent
FIX = "reason: the engine differs"


def _report(outcomes: dict[str, str], *, exitstatus: int = 1, **extra: Any) -> dict[str, Any]:
    tests = {
        t: {"outcome": o, "built_agent": True, "message": f"{o}!"} for t, o in outcomes.items()
    }
    return {
        "format": 1,
        "exitstatus": exitstatus,
        "collected": len(tests),
        "collection_errors": [],
        "tests": tests,
        **extra,
    }


def _listed(
    on_reference: dict[str, str] | None = None, on_langchain: dict[str, str] | None = None
) -> Differences:
    return Differences("1.5.2", on_reference or {}, on_langchain or {})


BASE = _report({"t::same": "passed", "t::differs": "passed", "t::broken": "failed"})
REF = _report({"t::same": "passed", "t::differs": "failed", "t::broken": "failed"})


def test_listed_differences_and_langchain_failures_pass() -> None:
    verdict = compare(BASE, REF, _listed({"t::differs": FIX}, {"t::broken": FIX}))
    assert verdict.ok, verdict.problems
    assert verdict.numbers["passed_on_langchain"] == 2
    assert verdict.numbers["passed_on_reference"] == 1
    assert verdict.numbers["agent_building_passed_on_both"] == 1
    assert verdict.by_cause == {FIX: 1}


def test_an_unlisted_failure_on_the_reference_engine_fails() -> None:
    verdict = compare(BASE, REF, _listed({}, {"t::broken": FIX}))
    assert not verdict.ok
    assert "t::differs" in verdict.problems[0]
    assert "not in langchain_differences.toml" in verdict.problems[0]


def test_a_listed_test_that_now_passes_fails_as_stale() -> None:
    verdict = compare(BASE, REF, _listed({"t::differs": FIX, "t::same": FIX}, {"t::broken": FIX}))
    assert len(verdict.problems) == 1
    assert "no longer do" in verdict.problems[0]
    assert "t::same: passed" in verdict.problems[0]


def test_a_listed_test_that_no_longer_exists_fails_as_stale() -> None:
    listed = _listed({"t::differs": FIX, "t::gone": FIX}, {"t::broken": FIX})
    assert "t::gone: not run" in compare(BASE, REF, listed).problems[0]


def test_a_new_failure_on_langchain_itself_is_reported_and_fails() -> None:
    verdict = compare(BASE, REF, _listed({"t::differs": FIX}))
    assert not verdict.ok
    assert "on LangChain itself" in verdict.problems[0]
    assert "t::broken" in verdict.problems[0]


@pytest.mark.parametrize(
    "baseline",
    [
        _report({}, exitstatus=5),  # no tests collected
        _report({"t::same": "passed"}, exitstatus=2),  # interrupted
        _report({"t::same": "passed"}, collection_errors=["t.py"]),
        {},  # no report written
    ],
    ids=["zero-tests", "interrupted", "collection-error", "no-report"],
)
def test_a_baseline_that_did_not_run_fails(baseline: dict[str, Any]) -> None:
    verdict = compare(baseline, REF, _listed({"t::differs": FIX}, {"t::broken": FIX}))
    assert not verdict.ok
    assert "on LangChain's create_agent" in verdict.problems[0]


def test_runs_that_collected_different_tests_fail() -> None:
    reference = _report({"t::same": "passed"})
    assert "ran different tests" in compare(BASE, reference, _listed()).problems[0]


def test_a_cause_is_required_and_a_test_is_listed_once() -> None:
    header = 'format = 1\nlangchain = "1.5.2"\n'
    with pytest.raises(ValueError, match="no cause"):
        comparison.parse_differences(header + '[[difference]]\ncause = ""\ntests = ["a"]\n')
    twice = '[[difference]]\ncause = "x"\ntests = ["a"]\n' * 2
    with pytest.raises(ValueError, match="listed twice"):
        comparison.parse_differences(header + twice)


def _pinned(name: str) -> str:
    text = (REPO / "ci-constraints.txt").read_text(encoding="utf-8")
    found = re.search(rf"^{name}==(\S+)$", text, re.MULTILINE)
    assert found, f"{name} is not pinned in ci-constraints.txt"
    return found.group(1)


def test_the_reviewed_files_are_for_the_pinned_langchain() -> None:
    listed = comparison.read_differences()
    assert listed.version == sources.read_sources().version == _pinned("langchain")
    assert listed.on_reference, "the list of differences is empty: it cannot have been measured"


def test_the_docs_list_the_differences_of_the_reviewed_file() -> None:
    """The known-differences page lists the reviewed file's causes, one line each, and the
    page on the oracle gives their number."""
    page = (REPO / "docs" / "reference" / "differences.md").read_text(encoding="utf-8")
    section = page.split("## LangChain ", 1)[1].split("\n## ", 1)[0]
    listed = [line.replace("\\[", "[").replace("\\]", "]") for line in section.splitlines()]
    expected = comparison.readme_list(comparison.read_differences())
    assert [line for line in listed if line.startswith("- ")] == expected
    total = len(comparison.read_differences().on_reference)
    oracle_page = (REPO / "docs" / "concepts" / "langchain-bridge.md").read_text("utf-8")
    assert f"The {total} listed" in oracle_page


def _sdist(tmp_path: Path, files: dict[str, bytes]) -> Path:
    """The same files give the same bytes (gzip's header time fixed), as a re-download does."""
    path = tmp_path / "langchain-9.9.9.tar.gz"
    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode="w") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(f"langchain-9.9.9/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    path.write_bytes(gzip.compress(tar.getvalue(), mtime=0))
    return path


def test_a_changed_sdist_is_refused_without_being_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {
        "pyproject.toml": b"[x]\n",
        "tests/unit_tests/agents/test_a.py": b"def test(): ...\n",
        "langchain/agents/factory.py": b"not used\n",
    }
    recorded = sources.record(_sdist(tmp_path, files), "9.9.9")
    assert set(recorded.files) == {"pyproject.toml", "tests/unit_tests/agents/test_a.py"}
    assert sources.verify(_sdist(tmp_path, files), recorded).keys() == recorded.files.keys()
    changed = _sdist(tmp_path, {**files, "tests/unit_tests/agents/test_a.py": b"changed\n"})
    digest = hashlib.sha256(changed.read_bytes()).hexdigest()
    opened: list[Path] = []
    monkeypatch.setattr(sources, "used_files", lambda sdist: opened.append(sdist) or {})
    with pytest.raises(sources.OracleError, match=f"sha256 {digest}.*did not open it"):
        sources.verify(changed, recorded)
    assert opened == []


def test_recording_names_the_test_files_that_changed(tmp_path: Path) -> None:
    files = {"pyproject.toml": b"[x]\n", "tests/unit_tests/agents/test_a.py": b"a\n"}
    before = sources.record(_sdist(tmp_path, files), "9.9.9")
    moved = {**files, "tests/unit_tests/agents/test_a.py": b"b\n"}
    now = sources.used_files(_sdist(tmp_path, moved))
    assert sources.file_changes(now, before) == (
        "changed files: ['tests/unit_tests/agents/test_a.py']; new: none; gone: none"
    )
    assert sources.file_changes(sources.used_files(_sdist(tmp_path, files)), before) == ""


def test_a_hand_edited_file_list_is_refused_even_for_the_recorded_sdist(tmp_path: Path) -> None:
    files = {"pyproject.toml": b"[x]\n", "tests/unit_tests/agents/test_a.py": b"a\n"}
    recorded = sources.record(_sdist(tmp_path, files), "9.9.9")
    edited = sources.Sources(recorded.version, recorded.sdist_sha256, {"pyproject.toml": "0"})
    with pytest.raises(sources.OracleError, match="never by hand"):
        sources.verify(_sdist(tmp_path, files), edited)
