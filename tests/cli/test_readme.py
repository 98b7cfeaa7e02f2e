"""The README's examples run as written: the snippets in place, the example project (blocks
that start with ``# path/to/file.py``) as files of a real pytest project."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

README = Path(__file__).resolve().parents[2] / "README.md"
FILE_HEADER = re.compile(r"# ([\w/]+\.py)\n")


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def _project_files() -> dict[str, str]:
    """The README's example project: each block that starts with a file name."""
    return {
        header.group(1): block for block in _python_blocks() if (header := FILE_HEADER.match(block))
    }


def _runnable_blocks(*, langchain: bool) -> list[str]:
    """The README's runnable python examples ("my_" marks sketches; file blocks run as a
    project below): those that import LangChain, or the others."""
    blocks = _python_blocks()
    assert blocks, "the README has no python example"
    return [
        block
        for block in blocks
        if "my_" not in block
        and not FILE_HEADER.match(block)
        and (LANGCHAIN_IMPORT.search(block) is not None) == langchain
    ]


LANGCHAIN_IMPORT = re.compile(r"^\s*(from|import) (langchain|langgraph|deepagents)\b", re.MULTILINE)


def test_readme_python_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    for block in _runnable_blocks(langchain=False):
        exec(compile(block, str(README), "exec"), {"__name__": "readme_example"})
    assert "OnlyPublic.wrap_model_call:enter" in capsys.readouterr().out


def test_readme_langchain_examples_run() -> None:
    pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run this")
    blocks = _runnable_blocks(langchain=True)
    assert blocks, "the README has no runnable LangChain example"
    for block in blocks:
        exec(compile(block, str(README), "exec"), {"__name__": "readme_example"})


@pytest.mark.slow
def test_readme_langchain_project_runs_as_written(pytester: pytest.Pytester) -> None:
    pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run this")
    pytest.importorskip("deepagents", reason="install hookproof[deepagents] to run this")
    pytest.importorskip("langchain_openai", reason="install hookproof[providers] to run this")
    files = _project_files()
    assert {"support_app.py", "tests/test_support_app.py"} <= set(files)
    longest = max(_test_lengths(files.values()))
    assert longest <= 15, f"a README example test has {longest} lines (at most 15)"
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
