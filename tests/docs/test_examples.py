"""Every example on the documentation site runs as written: each page's python blocks in
place, and the example project (blocks that start with ``# path/to/file.py``) as the files
of a real pytest project. The tutorials and how-to pages run theirs in their own tests."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from tests.docs.site import (
    REPO,
    code_blocks,
    page,
    page_id,
    project_files,
    runnable_blocks,
    site_pages,
)

PROJECT_PAGE = page("concepts/testing-langchain-apps.md")


def _pages_with(*, langchain: bool) -> list[Path]:
    return [path for path in site_pages() if runnable_blocks(path, langchain=langchain)]


def _run(blocks: Iterable[str], path: Path) -> None:
    for block in blocks:
        exec(compile(block, str(path), "exec"), {"__name__": "docs_example"})


def test_the_site_has_examples_to_run() -> None:
    assert len(_pages_with(langchain=False)) >= 5
    assert _pages_with(langchain=True)


@pytest.mark.parametrize("path", _pages_with(langchain=False), ids=page_id)
def test_python_examples_run(path: Path) -> None:
    _run(runnable_blocks(path, langchain=False), path)


@pytest.mark.parametrize("path", _pages_with(langchain=True), ids=page_id)
def test_langchain_examples_run(path: Path) -> None:
    pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run this")
    _run(runnable_blocks(path, langchain=True), path)


def test_only_the_project_page_has_an_example_project() -> None:
    """A project of files on another page would not run: this test would have to name it."""
    assert [path for path in site_pages() if project_files(path)] == [PROJECT_PAGE]


def test_the_go_example_is_the_one_go_test_runs() -> None:
    """The Go blocks are not run here; each is a test of go/ (go test runs them)."""
    go_tests = "\n".join(path.read_text("utf-8") for path in (REPO / "go").glob("*_test.go"))
    blocks = [block for path in site_pages() for block in code_blocks(path, "go")]
    assert blocks
    for block in blocks:
        assert _code_lines(block) <= _code_lines(go_tests), block


def _code_lines(text: str) -> set[str]:
    return {line.strip() for line in text.splitlines() if line.strip() and line.strip() != "}"}


@pytest.mark.slow
def test_the_langchain_project_runs_as_written(pytester: pytest.Pytester) -> None:
    pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run this")
    pytest.importorskip("deepagents", reason="install hookproof[deepagents] to run this")
    pytest.importorskip("langchain_openai", reason="install hookproof[providers] to run this")
    files = project_files(PROJECT_PAGE)
    assert {"support_app.py", "tests/test_support_app.py"} <= set(files)
    longest = max(_test_lengths(files.values()))
    assert longest <= 15, f"an example test has {longest} lines (at most 15)"
    for name, text in files.items():
        path = pytester.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    pytester.makeini("[pytest]\npythonpath = .\n")
    written = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--snapshot-update")
    written.assert_outcomes(passed=8)
    snapshots = sorted(p.name for p in (pytester.path / "snapshots").rglob("*.txt"))
    assert snapshots == [
        "test_final_request_per_role[admin].txt",
        "test_final_request_per_role[guest].txt",
        "test_first_request[general-purpose].txt",
        "test_first_request[main].txt",
    ]
    guest = next((pytester.path / "snapshots").rglob("*[[]guest].txt")).read_text()
    assert "Today is Monday, January 05, 2026." in guest
    assert "\n  lookup\n" in guest and "\n  refund\n" not in guest  # the guest's tools
    subagent = next((pytester.path / "snapshots").rglob("*[[]general-purpose].txt")).read_text()
    assert "\nagent: general-purpose (depth 1)\n" in subagent  # its own parameter's script
    assert "\n  lookup\n" in subagent and "\n  refund\n" not in subagent
    checked = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2")
    checked.assert_outcomes(passed=8)


def _test_lengths(blocks: Iterable[str]) -> list[int]:
    """Lines of each test function (decorators included) in the given files."""
    chunks = [chunk.strip() for block in blocks for chunk in block.split("\n\n\n")]
    return [len(chunk.splitlines()) for chunk in chunks if "\ndef test_" in f"\n{chunk}"] or [0]
