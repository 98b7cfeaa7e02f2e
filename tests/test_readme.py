"""The README's example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert blocks, "the README has no python example"
    runnable = [block for block in blocks if "my_" not in block]  # the others are sketches
    for block in runnable:
        exec(compile(block, str(README), "exec"), {"__name__": "readme_example"})
    assert "OnlyPublic.wrap_model_call:enter" in capsys.readouterr().out
