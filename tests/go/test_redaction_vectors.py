"""Python's built-in redaction against the shared redaction vectors, which
go/redact_test.go checks Go's RedactText against too: the two cannot drift apart without one
suite failing."""

from __future__ import annotations

from hookproof.redaction import Redaction, redact_text
from tests.go.vectors import (
    NEAR_MISSES,
    REDACTION_RANDOM_COUNT,
    redaction_cases,
    redaction_inputs,
)
from tests.secret_corpus import IN_TEXT, PROSE, leaked

CASES = redaction_cases()
EXPECTED = {case["text"]: case["expected"] for case in CASES}


def test_the_vectors_hold_every_input_as_generated() -> None:
    assert [case["text"] for case in CASES] == redaction_inputs()
    assert len(CASES) > len(IN_TEXT) + len(PROSE) + len(NEAR_MISSES) + REDACTION_RANDOM_COUNT


def test_python_redacts_every_vector_as_written() -> None:
    mismatched = [
        (index, case["text"])
        for index, case in enumerate(CASES)
        if redact_text(case["text"], Redaction()) != case["expected"]
    ]
    assert not mismatched, mismatched[:5]


def test_the_vectors_hide_the_corpus_and_keep_the_prose() -> None:
    # A bare secret may stay (an AWS secret key is only looked for beside a name): each is
    # in the vectors for Go to agree on, whatever Python makes of it.
    for name, text in IN_TEXT.items():
        assert leaked(EXPECTED[text]) == [], name
        assert "[REDACTED]" in EXPECTED[text], name
    for text in PROSE:
        assert EXPECTED[text] == text
