"""The README is the front page: at most 250 lines, its two Quick start commands exactly as
CI and users run them, its example runs as written, and its links reach pages that exist.
Every other page's examples run in tests/docs/test_examples.py."""

from __future__ import annotations

import pytest

from tests.docs.site import README, code_blocks, runnable_blocks, text_of

QUICK_START = (
    "python -m pip install '.[test]' && python -m hookproof check",
    "python -m pip install -e '.[test]' && python -m pytest -n 2",
)


def test_the_readme_is_a_front_page_of_at_most_250_lines() -> None:
    lines = len(text_of(README).splitlines())
    assert 0 < lines <= 250, f"README.md has {lines} lines: move the detail into docs/"


def test_the_quick_start_commands_are_kept_byte_for_byte() -> None:
    quick_start = text_of(README).split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert [block.strip() for block in code_blocks(README, "sh")[:2]] == list(QUICK_START)
    assert all(command in quick_start for command in QUICK_START)


def test_the_readme_example_is_short_and_runs(capsys: pytest.CaptureFixture[str]) -> None:
    (example,) = runnable_blocks(README, langchain=False)
    assert len(example.splitlines()) <= 20
    exec(compile(example, str(README), "exec"), {"__name__": "readme_example"})
    assert "OnlyPublic.wrap_model_call:enter" in capsys.readouterr().out
