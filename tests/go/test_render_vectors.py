"""Python's render against the shared vectors the Go renderer is checked against too."""

from __future__ import annotations

import pytest

from hookproof.snapshot import render
from tests.go.vectors import (
    COMPUTE_COUNT,
    COMPUTE_FILE,
    PROVENANCE_COUNT,
    PROVENANCE_FILE,
    RANDOM_COUNT,
    RENDER,
    computed,
    named_cases,
    provenance_json,
    random_cases,
    request_from_json,
)

NAMED = named_cases()


def test_the_vectors_cover_the_request_features() -> None:
    assert {"minimal", "conversation", "secrets", "volatile", "blocks"} <= set(NAMED)
    assert len(random_cases()) == RANDOM_COUNT
    assert {name for name in NAMED if name.startswith("provenance_")} >= {
        "provenance_lines",
        "provenance_escaped",
        "provenance_normalised",
        "provenance_empty_system",
        "provenance_nothing",
    }
    assert len(random_cases(PROVENANCE_FILE)) == PROVENANCE_COUNT
    assert len(random_cases(COMPUTE_FILE)) == COMPUTE_COUNT


@pytest.mark.parametrize("name", sorted(NAMED))
def test_python_renders_each_named_vector_as_written(name: str) -> None:
    expected = (RENDER / f"{name}.expected").read_text("utf-8")
    assert render(request_from_json(NAMED[name])) == expected


def test_python_renders_every_random_vector_as_written() -> None:
    for index, case in enumerate(random_cases()):
        assert render(request_from_json(case["request"])) == case["expected"], index


def test_python_renders_every_random_vector_with_provenance_as_written() -> None:
    cases = random_cases(PROVENANCE_FILE)
    for index, case in enumerate(cases):
        assert render(request_from_json(case["request"])) == case["expected"], index
    formats = {case["expected"].split("\n", 1)[0][-1] for case in cases}
    assert formats == {"1", "2"}  # some have nothing to show


def test_python_computes_every_provenance_vector_as_written() -> None:
    cases = random_cases(COMPUTE_FILE)
    for index, case in enumerate(cases):
        assert provenance_json(computed(case)) == case["expected"], index
    # the vectors exercise relabelling: lines kept, moved and written by a handler
    origins = {origin for case in cases for origin in case["expected"]["system"]}
    assert "agent" in origins and len(origins) > 3
