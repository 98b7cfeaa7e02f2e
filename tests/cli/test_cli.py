"""The ``hookproof`` command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hookproof.cli import main

SPEC = Path(__file__).resolve().parents[3] / "shared" / "spec" / "deepagents-harness.md"
EXPECTED = """\
guest_model=fast
guest_business_tools=['public_search']
analyst_model=reasoning
analyst_business_tools=['internal_lookup', 'public_search']
profile_suffix_applied=True
profile_all_visible_tools=['edit_file', 'export_customer_report', 'glob', 'grep', 'ls', \
'public_search', 'read_file', 'write_file', 'write_todos']
profile_visible_business_tools=['export_customer_report', 'public_search']
provider_kwargs={'temperature': 0.2, 'timeout': 45, 'base_url': 'https://provider.example.invalid/v1'}
"""


def test_demo_prints_the_articles_eight_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    assert capsys.readouterr().out == EXPECTED


@pytest.mark.skipif(not SPEC.exists(), reason="shared/ is not beside this checkout")
def test_expected_lines_are_the_specs_block() -> None:
    block = SPEC.read_text(encoding="utf-8").split("```\n")[1]
    assert block == EXPECTED


def test_demo_trace_shows_the_harness_layers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--trace"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(EXPECTED)
    assert "RequestRouter.wrap_model_call:enter" in out
    assert "HarnessProfileToolExclusion.wrap_model_call:enter" in out


@pytest.mark.slow
def test_demo_output_is_identical_across_runs_and_hash_seeds() -> None:
    outputs = {
        subprocess.check_output(
            [sys.executable, "-m", "hookproof.cli", "demo"],
            text=True,
            env={"PYTHONHASHSEED": seed, "PATH": "", "TEACHING_BASE_URL": ""},
        )
        for seed in ("0", "1", "12345")
    }
    assert len(outputs) == 1


def test_no_command_prints_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "demo" in capsys.readouterr().out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith("hookproof 0.1.0")
