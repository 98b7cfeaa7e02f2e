"""Snapshot files are never collected as tests.

They are named ``test_*.txt``, which pytest's default ``--doctest-glob`` (``test*.txt``)
matches, so without the plugin a downstream ``pytest`` would read them as doctests (and stop
on the first one that is not UTF-8). A snapshot is recognised by its header bytes, wherever it
is; users' own doctest files are still collected, even inside the snapshot directory.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from hookproof.snapshot.files import has_snapshot_header, read_regular_file

HEADER = b"hookproof final request, format 1\n"
BOM = b"\xef\xbb\xbf"
FAILING_DOCTEST = b">>> 1 + 1\n3\n"  # fails if anything collects the file as a doctest
PASSING_DOCTEST = ">>> 1 + 1\n2\n"
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")


def _write(root: Path, name: str, data: bytes) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    root = pytester.path
    _write(root, "snapshots/test_agent/test_guest.txt", HEADER + FAILING_DOCTEST)
    _write(
        root, "snapshots/test_agent/test_x.txt", HEADER + b"\xff\xfe not UTF-8\n" + FAILING_DOCTEST
    )
    _write(root, "baseline/test_agent/test_copy.txt", HEADER + b"\xff\n" + FAILING_DOCTEST)
    _write(root, "baseline/test_agent/test_bom.txt", BOM + HEADER + FAILING_DOCTEST)
    _write(root, "test_real.txt", PASSING_DOCTEST.encode())
    _write(root, "docs/test_guide.txt", PASSING_DOCTEST.encode())
    return pytester


def test_snapshot_files_are_not_doctests_and_real_doctests_are(project: pytest.Pytester) -> None:
    result = project.runpytest_inprocess("-v")
    result.assert_outcomes(passed=2)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*docs/test_guide.txt::test_guide.txt PASSED*"])
    result.stdout.fnmatch_lines(["*test_real.txt::test_real.txt PASSED*"])
    assert "UnicodeDecodeError" not in result.stdout.str()


def test_the_snapshot_directory_hides_only_snapshots(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nhookproof_snapshot_dir = reviewed\n")
    _write(project.path, "reviewed/test_agent/test_y.txt", HEADER + b"\x80\n" + FAILING_DOCTEST)
    _write(project.path, "reviewed/test_notes.txt", PASSING_DOCTEST.encode())
    _write(project.path, "snapshots/test_notes.txt", PASSING_DOCTEST.encode())
    result = project.runpytest_inprocess("-v")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*reviewed/test_notes.txt::test_notes.txt PASSED*"])
    result.stdout.fnmatch_lines(["*snapshots/test_notes.txt::test_notes.txt PASSED*"])


@pytest.mark.parametrize("snapshot_dir", ["tests", "."])
def test_a_snapshot_directory_overlapping_the_tests_hides_no_doctest(
    snapshot_dir: str, project: pytest.Pytester
) -> None:
    project.makeini(f"[pytest]\nhookproof_snapshot_dir = {snapshot_dir}\n")
    _write(project.path, "tests/test_doc.txt", FAILING_DOCTEST)
    _write(project.path, "tests/tests/test_agent/test_guest.txt", HEADER + FAILING_DOCTEST)
    result = project.runpytest_inprocess("-v")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*tests/test_doc.txt::test_doc.txt FAILED*"])


@pytest.mark.slow
@needs_fifo
def test_a_fifo_in_the_snapshot_directory_is_never_opened(project: pytest.Pytester) -> None:
    os.mkfifo(project.path / "snapshots/test_agent/test_pipe.txt")
    # In a process of its own, with a timeout: a collection blocked on the fifo ends there.
    result = project.runpytest_subprocess(timeout=120)
    result.assert_outcomes(passed=2)


@pytest.mark.slow
def test_collection_imports_nothing_heavy(project: pytest.Pytester) -> None:
    project.makeconftest(
        "import sys\n"
        "def pytest_collection_finish(session):\n"
        "    heavy = ('hookproof.snapshot._diff', 'hookproof.runtime', 'syrupy')\n"
        "    print('HEAVY', [name for name in heavy if name in sys.modules])\n"
    )
    project.makepyfile("def test_plain():\n    pass\n")
    args = ("--collect-only", "-s", "-p", "no:syrupy", "-p", "no:hypothesispytest")
    result = project.runpytest_subprocess(*args)  # this process has imported them already
    result.stdout.fnmatch_lines(["HEAVY []", "*3 tests collected*"])


# -- recognising a snapshot without trusting the file ---------------------------------------


def test_the_header_is_recognised_from_its_first_bytes(tmp_path: Path) -> None:
    assert has_snapshot_header(_write(tmp_path, "a.txt", HEADER + b"\xff\xfe"))
    assert has_snapshot_header(_write(tmp_path, "b.txt", BOM + HEADER))
    assert not has_snapshot_header(_write(tmp_path, "c.txt", b"hookproof final"))
    assert not has_snapshot_header(_write(tmp_path, "d.txt", b"\xff" * 100))
    assert not has_snapshot_header(tmp_path / "missing.txt")
    (tmp_path / "dir.txt").mkdir()
    assert not has_snapshot_header(tmp_path / "dir.txt")
    assert read_regular_file(tmp_path / "dir.txt") is None


def _finishes(action: Callable[[], object]) -> bool:
    """Run ``action`` in a daemon thread: a blocked open cannot hang the suite."""
    worker = threading.Thread(target=action, daemon=True)
    worker.start()
    worker.join(timeout=10)
    return not worker.is_alive()


@needs_fifo
def test_a_fifo_is_never_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "test_pipe.txt"
    os.mkfifo(fifo)
    results: list[object] = []
    assert _finishes(lambda: results.append(has_snapshot_header(fifo)))
    assert _finishes(lambda: results.append(read_regular_file(fifo)))
    assert results == [False, None]
