"""`hookproof conformance --target eino`: the command end to end, with and without Go, and
the comparison it is built on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hookproof.cli import main
from hookproof.conformance import EINO_SEMANTICS, run_eino_conformance
from hookproof.conformance._eino import difference
from hookproof.conformance._eino_go import EinoProgram, go_sources
from hookproof.conformance._eino_python import Outcome, run_on_hookproof
from hookproof.conformance._eino_scenarios import KNOWN_DIFFERENCES, Scenario
from hookproof.errors import GoToolchainError, InvalidInputError
from tests.go.toolchain import go_binary

_DONE = Scenario(("done",))


def _outcome(**changes: object) -> Outcome:
    values: dict[str, object] = {
        "labels": ("model:enter", "model:exit"),
        "requests": ("line 1\nline 2",),
        "events": ("assistant: done",),
        "failed": False,
    }
    return Outcome(**{**values, **changes})  # type: ignore[arg-type]


def test_difference_names_the_first_mismatch_in_one_line() -> None:
    assert difference(_outcome(), _outcome()) is None
    assert difference(_outcome(failed=True), _outcome()) == (
        "hookproof ended in an error, Eino in success"
    )
    assert difference(_outcome(events=("error",)), _outcome()) == (
        "events[0]: hookproof 'error', Eino 'assistant: done'"
    )
    assert difference(_outcome(labels=("model:enter",)), _outcome()) == (
        "labels: hookproof has 1, Eino 2"
    )
    assert difference(_outcome(requests=("line 1\nline X",)), _outcome()) == (
        "requests[0]: line 2: hookproof 'line X', Eino 'line 2'"
    )


def test_the_hookproof_side_shows_events_trace_and_requests() -> None:
    scenario = EINO_SEMANTICS["run_local_values"]["counted across hooks"]
    outcome = run_on_hookproof(scenario)
    assert outcome.events[-1] == "custom: calls=3"
    assert outcome.events[1] == "tool search: found x (calls=1)"
    # the run-local handler defines no before_agent (on both sides), so none is traced
    assert outcome.labels[:2] == (
        "rl.before_model_rewrite_state:enter",
        "rl.before_model_rewrite_state:exit",
    )
    assert not any(".before_agent:" in label for label in outcome.labels)
    assert len(outcome.requests) == 3 and not outcome.failed


def test_without_go_the_command_exits_2_and_reports_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH without go
    assert main(["conformance", "--target", "eino"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "`go` is not on PATH" in captured.err
    assert "Install Go 1.22 or later" in captured.err
    assert "Nothing was compared" in captured.err


def test_unknown_semantics_are_refused() -> None:
    with pytest.raises(InvalidInputError, match="unknown Eino semantic"):
        run_eino_conformance(["no_such_semantic"])


def test_missing_go_sources_are_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hookproof.conformance import _eino_go

    assert (go_sources() / "cmd" / "einoscenario" / "main.go").is_file()
    monkeypatch.setattr(_eino_go, "_CHECKOUT", tmp_path)
    with pytest.raises(GoToolchainError, match="Go sources of the Eino scenario runner"):
        go_sources()


def test_a_runner_that_stops_is_an_error_with_its_output(tmp_path: Path) -> None:
    binary = tmp_path / "einoscenario"
    binary.write_text("#!/bin/sh\necho 'panic: it broke' >&2\nexit 3\n", encoding="utf-8")
    binary.chmod(0o755)
    with (tmp_path / "stderr").open("w+", encoding="utf-8") as stderr:
        program = EinoProgram(binary, stderr)
        with pytest.raises(GoToolchainError, match="panic: it broke"):
            program.run(_DONE)
        program.close()


@pytest.mark.slow  # starts go
def test_a_failed_build_exits_2_saying_how_to_get_the_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    go_binary()
    monkeypatch.setenv("GOPROXY", "off")  # no module proxy ...
    monkeypatch.setenv("GOMODCACHE", str(tmp_path / "empty"))  # ... and no module cache
    assert main(["conformance", "--target", "eino"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "`go build` of the Eino scenario runner failed" in captured.err
    assert "go mod download" in captured.err


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hookproof.cli", "conformance", "--target", "eino", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**os.environ, "PYTHONWARNINGS": "error"},
        timeout=600,
        check=False,
    )


@pytest.mark.slow  # builds and runs the Go runner
def test_the_command_reports_each_semantic_on_real_eino() -> None:
    go_binary()
    done = _cli("--format", "json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [row["probe"] for row in rows] == list(EINO_SEMANTICS)
    assert {row["target"] for row in rows} == {"eino"}
    expected = {
        name: "differs" if name in KNOWN_DIFFERENCES else "holds" for name in EINO_SEMANTICS
    }
    assert {row["probe"]: row["status"] for row in rows} == expected
    handler_order = next(row for row in rows if row["probe"] == "handler_order")
    assert handler_order["observed"] == "3 scenarios alike"
    text = _cli()
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[0].split() == ["semantic", "target", "status", "observed"]
    assert "(a known difference: " in text.stdout


def test_the_wheel_ships_the_go_sources_where_the_runner_looks() -> None:
    import tomllib

    from hookproof.conformance import _eino_go

    root = Path(__file__).resolve().parents[2]
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    wheel = config["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["sources"]["go"] == "hookproof/_go"
    assert "/go/**/*.go" in wheel["include"]  # tests/release checks the built wheel's files
    assert root / "go" == _eino_go._CHECKOUT  # a checkout's fallback is the same directory
