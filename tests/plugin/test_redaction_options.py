"""The ini options hookproof_redact_fields and hookproof_redact_patterns."""

from __future__ import annotations

import pytest

from hookproof.redaction import Redaction, active_redaction

TEST = """
from hookproof.messages import SystemMessage
from hookproof.models import FinalRequest
from hookproof.redaction import redact_text

def test_request(hookproof_snapshot):
    request = FinalRequest(
        model="m",
        system_message=SystemMessage(content="order ACME-123456, session=abc123"),
        model_settings={"tenant_key": "tenant-7", "max_tokens": 5},
    )
    assert redact_text("ACME-654321") == "[REDACTED]"
    assert request == hookproof_snapshot
"""

INI = """[pytest]
hookproof_redact_fields =
    tenant_key, other-field
hookproof_redact_patterns =
    ACME-\\d{6}
    session=(?P<secret>\\w+)
"""


def test_ini_fields_and_patterns_reach_the_snapshot_file(pytester: pytest.Pytester) -> None:
    pytester.makeini(INI)
    pytester.makepyfile(test_app=TEST)
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    text = (pytester.path / "snapshots" / "test_app" / "test_request.txt").read_text()
    assert "| order [REDACTED], session=[REDACTED]" in text
    assert '"tenant_key": "[REDACTED]"' in text
    assert "tenant-7" not in text
    assert '"max_tokens": 5' in text


def test_the_session_puts_the_previous_redaction_back(pytester: pytest.Pytester) -> None:
    before = active_redaction()
    pytester.makeini(INI)
    pytester.makepyfile(test_app=TEST)
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    assert active_redaction() == before == Redaction()


def test_an_invalid_pattern_stops_the_run(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nhookproof_redact_patterns = (unclosed\n")
    pytester.makepyfile(test_app="def test_x():\n    pass\n")
    result = pytester.runpytest_inprocess()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*redaction pattern '(unclosed' is not a valid regular*"])
