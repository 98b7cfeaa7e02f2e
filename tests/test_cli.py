"""The ``hookproof`` command."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hookproof.cli import main


def test_demo_runs_a_real_scripted_agent_and_prints_its_trace(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "guest_model=fast\n"
        "guest_business_tools=['public_search']\n"
        "analyst_model=reasoning\n"
        "analyst_business_tools=['internal_lookup', 'public_search']\n"
    )
    assert "RequestRouter.wrap_model_call:enter" in out
    assert "tool:exit (tool='public_search', call_id='call_0', status='success')" in out


def test_demo_output_is_identical_across_runs_and_hash_seeds() -> None:
    outputs = {
        subprocess.check_output(
            [sys.executable, "-m", "hookproof.cli", "demo"],
            text=True,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
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
