"""Python's render against the shared vectors the Go renderer is checked against too."""

from __future__ import annotations

import pytest

from hookproof.snapshot import render
from tests.go.vectors import RANDOM_COUNT, RENDER, named_cases, random_cases, request_from_json

NAMED = named_cases()


def test_the_vectors_cover_the_request_features() -> None:
    assert {"minimal", "conversation", "secrets", "volatile", "blocks"} <= set(NAMED)
    assert len(random_cases()) == RANDOM_COUNT


@pytest.mark.parametrize("name", sorted(NAMED))
def test_python_renders_each_named_vector_as_written(name: str) -> None:
    expected = (RENDER / f"{name}.expected").read_text("utf-8")
    assert render(request_from_json(NAMED[name])) == expected


def test_python_renders_every_random_vector_as_written() -> None:
    for index, case in enumerate(random_cases()):
        assert render(request_from_json(case["request"])) == case["expected"], index
