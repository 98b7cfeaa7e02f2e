"""docs/how-to/gate-upgrade-ci.md: every YAML block on the page is a repository file, shown
whole (a block edited on the page or a file edited in the repository fails here); the shell
block runs in a copy of the downstream example and the gate it ends with passes; the page's
relative links lead to pages that exist."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import hookproof
from hookproof.cli.check import suite_environment

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs/how-to/gate-upgrade-ci.md"
FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```$", re.M | re.S)
TITLE = re.compile(r'^ title="([^"]+)"$')


def blocks(text: str) -> list[tuple[str, str, str]]:
    """(language, info after the language, content) of each fenced block."""
    return [(m.group(1), m.group(2), m.group(3)) for m in FENCE.finditer(text)]


def drift(text: str) -> list[str]:
    """The YAML blocks that are not, whole, the repository file their title names."""
    found = []
    for language, info, content in blocks(text):
        if language != "yaml":
            continue
        title = TITLE.match(info)
        if title is None:
            found.append(f"a yaml block without title=: {content[:60]!r}")
        elif content != (REPO / title.group(1)).read_text(encoding="utf-8"):
            found.append(f"{title.group(1)} differs from the page's block")
    return found


def test_every_yaml_block_is_its_repository_file() -> None:
    text = PAGE.read_text(encoding="utf-8")
    titles = [TITLE.match(info) for language, info, _ in blocks(text) if language == "yaml"]
    assert len(titles) == 3
    assert drift(text) == []


def test_a_block_that_drifted_from_its_file_is_caught() -> None:
    text = PAGE.read_text(encoding="utf-8")
    edited = text.replace("python -m pytest -n auto", "python -m pytest -n 4", 1)
    assert drift(edited) == [
        "examples/downstream/.github/workflows/hookproof.yml differs from the page's block"
    ]


def test_the_pages_links_lead_somewhere() -> None:
    text = PAGE.read_text(encoding="utf-8")
    for target in re.findall(r"\]\((\.\.?/[^)]+)\)", text):
        assert (PAGE.parent / target).resolve().is_file(), target


@pytest.mark.slow
def test_the_local_try_runs_and_passes_on_the_downstream_example(tmp_path: Path) -> None:
    [script] = [
        content for language, _, content in blocks(PAGE.read_text("utf-8")) if language == "sh"
    ]
    project = tmp_path / "downstream"
    shutil.copytree(
        REPO / "examples/downstream", project, ignore=shutil.ignore_patterns("snapshots-*")
    )
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    source = str(Path(hookproof.__file__).resolve().parents[1])
    env = {**suite_environment(os.environ), "PATH": path, "PYTHONPATH": source}

    done = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", script],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = (project / "gate.md").read_text(encoding="utf-8")
    assert "PASSED" in report
    assert "2 snapshots, 2 unchanged" in report
