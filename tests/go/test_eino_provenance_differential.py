"""Provenance on real Eino against hookproof.eino's: the Go runner (go/cmd/einoscenario)
prints each FinalRequest also with the provenance its traced handlers noted, and hookproof.eino
gives the same scenario's requests theirs; both must render alike.

Only scenarios with handlers are compared: the Go side notes provenance through
``Trace.Handler``, so an agent without handlers has none there (its snapshots stay format 1),
while hookproof.eino's requests always carry it. The conformance runner renders hookproof.eino's
requests without provenance; here its ``render`` is swapped for one that keeps it.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from hookproof.conformance import EINO_SEMANTICS, _eino_python
from hookproof.conformance._eino_go import build_program
from hookproof.conformance._eino_scenarios import KNOWN_DIFFERENCES, Scenario
from hookproof.snapshot import render
from tests.go.test_eino_differential import scenarios
from tests.go.toolchain import go_binary

pytestmark = pytest.mark.slow  # builds and runs a Go program

GENERATED_EXAMPLES = 150
_MESSAGE_ID = '"_eino_msg_id": "'


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Path:
    go_binary()  # skips (fails under CI) without Go
    return build_program(tmp_path_factory.mktemp("go"))


def _without_ids(texts: Sequence[str]) -> list[str]:
    """Eino stamps each message with a random id, hookproof.eino numbers them."""
    cleaned = []
    for text in texts:
        parts = text.split(_MESSAGE_ID)
        cleaned.append(
            parts[0] + "".join(_MESSAGE_ID + part.split('"', 1)[1] for part in parts[1:])
        )
    return cleaned


def on_eino(runner: Path, cases: Sequence[Scenario]) -> list[list[str]]:
    lines = "".join(case.to_json() + "\n" for case in cases)
    ran = subprocess.run(
        [str(runner)], input=lines, capture_output=True, text=True, timeout=600, check=True
    )
    answers: list[dict[str, Any]] = [json.loads(line) for line in ran.stdout.splitlines()]
    assert len(answers) == len(cases), ran.stderr
    return [_without_ids(answer["provenance_requests"]) for answer in answers]


def on_hookproof(case: Scenario, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    with monkeypatch.context() as patched:
        patched.setattr(_eino_python, "render", lambda request, **_: render(request))
        return _without_ids(_eino_python.run_on_hookproof(case).requests)


CATALOGUE = [
    (f"{semantic}: {name}", scenario)
    for semantic, named in EINO_SEMANTICS.items()
    if semantic not in KNOWN_DIFFERENCES
    for name, scenario in named.items()
    if scenario.handlers
]


def test_the_catalogue_gives_the_same_provenance_on_eino_and_hookproof(
    runner: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(CATALOGUE) > 30
    eino = on_eino(runner, [scenario for _, scenario in CATALOGUE])
    shown = 0
    for (name, scenario), theirs in zip(CATALOGUE, eino, strict=True):
        ours = on_hookproof(scenario, monkeypatch)
        assert ours == theirs, f"{name}\n{scenario.to_json()}"
        shown += sum(1 for text in theirs if "\nprovenance:\n" in text)
    assert shown > 30  # the Go side does record it


def test_generated_scenarios_give_the_same_provenance_on_eino_and_hookproof(
    runner: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[Scenario] = []

    @settings(
        max_examples=GENERATED_EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(scenario=scenarios())
    def draw(scenario: Scenario) -> None:
        if scenario.handlers:
            drawn.append(scenario)

    draw()
    for scenario, theirs in zip(drawn, on_eino(runner, drawn), strict=True):
        assert on_hookproof(scenario, monkeypatch) == theirs, scenario.to_json()
