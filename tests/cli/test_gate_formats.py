"""A report format is one function plus one registry entry: ``hookproof gate --format``
offers, describes and runs whatever the registry holds, and nothing it no longer holds."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookproof.cli import main
from hookproof.errors import UsageError
from hookproof.gate import (
    GateReport,
    register_format,
    report_format,
    report_formats,
    unregister_format,
)
from tests.review.helpers import upgrade


def toy(report: GateReport) -> str:
    """The whole format: a function of the report."""
    return f"toy: {len(report.files)} snapshots, {len(report.findings)} findings"


@pytest.fixture
def toy_registered() -> Iterator[None]:
    register_format("toy", toy, help="one line of counts")
    yield
    unregister_format("toy")


def _gate_help(capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exited:
        main(["gate", "--help"])
    assert exited.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # argparse wraps the help


@pytest.mark.usefixtures("toy_registered")
def test_a_registered_format_is_offered_and_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "--format {text,markdown,json,html,toy}" in _gate_help(capsys)
    assert "toy: one line of counts" in _gate_help(capsys)
    old, new = upgrade(tmp_path)
    assert main(["gate", str(old), str(new), "--format", "toy"]) == 1  # SECURITY fails it
    assert capsys.readouterr().out == "toy: 3 snapshots, 3 findings\n"


def test_an_unregistered_format_is_gone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    register_format("toy", toy, help="one line of counts")
    unregister_format("toy")
    assert "toy" not in _gate_help(capsys)
    old, new = upgrade(tmp_path)
    with pytest.raises(SystemExit) as exited:
        main(["gate", str(old), str(new), "--format", "toy"])
    assert exited.value.code == 2
    assert "invalid choice: 'toy'" in capsys.readouterr().err
    assert "toy" not in [fmt.name for fmt in report_formats()]


def test_the_built_in_formats_come_from_the_registry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert [fmt.name for fmt in report_formats()] == ["text", "markdown", "json", "html"]
    old, new = upgrade(tmp_path)
    main(["gate", str(old), str(new), "--format", "json"])
    assert json.loads(capsys.readouterr().out)["passed"] is False


def test_the_registry_refuses_a_taken_name_and_names_the_known_ones() -> None:
    with pytest.raises(UsageError, match="'text' is already registered"):
        register_format("text", toy, help="a second text")
    with pytest.raises(
        UsageError, match=r"Did you mean 'markdown'\? Registered: text, markdown, json, html\."
    ):
        report_format("markdwn")
    with pytest.raises(UsageError, match="Did you mean 'json'"):
        unregister_format("jsno")
    with pytest.raises(UsageError, match="letters, digits and _"):
        register_format("two words", toy, help="not a name")
    assert report_format("text").name == "text"


@pytest.mark.parametrize(
    ("renderer", "message"),
    [
        ("tests.cli.no_such_module:toy", "which cannot be loaded"),
        ("tests.cli.test_gate_formats:no_such_function", "which cannot be loaded"),
        ("tests.cli.test_gate_formats:__doc__", "not a function of a GateReport"),
        ("tests.cli.test_gate_formats:not_text", "returned a dict, not text"),
    ],
)
def test_a_format_that_cannot_render_is_bad_input_not_a_failing_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], renderer: str, message: str
) -> None:
    old, new = upgrade(tmp_path)
    register_format("broken", renderer, help="a broken format")
    try:
        assert main(["gate", str(old), str(new), "--format", "broken"]) == 2
    finally:
        unregister_format("broken")
    assert message in capsys.readouterr().err


def not_text(report: GateReport) -> dict[str, int]:
    return {"findings": len(report.findings)}
