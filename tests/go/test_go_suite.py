"""The Go companion's own tests (go/), run from the README's test command."""

from __future__ import annotations

import shutil

import pytest

from tests.go.toolchain import go_binary, run_go


@pytest.mark.slow
def test_the_go_module_builds_and_its_tests_pass() -> None:
    result = run_go("test", "./...")
    assert result.returncode == 0, f"go test ./... failed:\n{result.stdout}\n{result.stderr}"


def test_a_missing_toolchain_skips_outside_ci_and_fails_in_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="not on PATH"):
        go_binary()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run them"):
        go_binary()
