"""`hookproof conformance --target eino`: a runner that cannot start is a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookproof import cli
from hookproof.conformance import _eino_go


def test_a_runner_that_cannot_start_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def built_but_not_executable(directory: Path) -> Path:
        binary = directory / _eino_go.PROGRAM
        binary.write_text("not a program", encoding="utf-8")
        binary.chmod(0o644)  # as on a temporary directory mounted noexec
        return binary

    monkeypatch.setattr(_eino_go, "build_program", built_but_not_executable)
    assert cli.main(["conformance", "--target", "eino"]) == 2
    assert "hookproof:" in capsys.readouterr().err
