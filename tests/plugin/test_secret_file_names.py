"""A secret in a test's id (a parametrize value) reaches no snapshot or cassette file name:
it is redacted, and the test's parameter indices keep two such tests in two files."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookproof.errors import InvalidInputError
from hookproof.recording import cassette_path
from hookproof.redaction import redact_file_name

FIRST = "hunter2pass1"
SECOND = "hunter2pass2"
GITHUB = "ghp_" + "Ab1" * 12

SNAPSHOT_TEST = f"""
import pytest
from hookproof.messages import UserMessage
from hookproof.requests import FinalRequest

DSNS = ["redis://:{FIRST}@cache:6379/0", "redis://:{SECOND}@cache:6379/0", "{GITHUB}", "plain"]

@pytest.mark.parametrize("dsn", DSNS)
def test_dsn(dsn, hookproof_snapshot):
    assert FinalRequest(model="m", messages=(UserMessage(dsn[-2:]),)) == hookproof_snapshot
"""

CASSETTE_TEST = f"""
import pytest
from hookproof.messages import UserMessage
from hookproof.requests import FinalRequest
from tests.recording.models import EchoModel

@pytest.mark.parametrize("dsn", ["redis://:{FIRST}@cache/0", "redis://:{SECOND}@cache/0"])
def test_echo(dsn, hookproof_cassette):
    model = hookproof_cassette.wrap(EchoModel())
    answer = model.invoke(FinalRequest(model="m", messages=(UserMessage(dsn[-12:]),)))
    assert answer.text.startswith("echo: ")
"""


def _names(root: pytest.Pytester, pattern: str) -> list[str]:
    return sorted(str(path.relative_to(root.path)) for path in root.path.rglob(pattern))


def _no_secret(text: str) -> bool:
    return FIRST not in text and SECOND not in text and GITHUB not in text


def test_snapshot_files_of_secret_ids_are_redacted_and_kept_apart(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_app=SNAPSHOT_TEST)
    written = pytester.runpytest_inprocess("--snapshot-update", "-W", "error")
    written.assert_outcomes(passed=4)
    names = _names(pytester, "*.txt")
    assert len(names) == 4
    assert all(map(_no_secret, names)), names
    assert "snapshots/test_app/test_dsn[plain].txt" in names
    assert "snapshots/test_app/test_dsn[redis[REDACTED]@cache63790]-param0.txt" in names
    assert all(map(_no_secret, written.outlines + written.errlines))
    checked = pytester.runpytest_inprocess("-W", "error")
    checked.assert_outcomes(passed=4)
    assert "unused" not in checked.stdout.str()


def test_an_edited_secret_id_still_meets_its_own_snapshot(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_app=SNAPSHOT_TEST)
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=4)
    swapped = SNAPSHOT_TEST.replace(FIRST, "rotated-pass")
    pytester.makepyfile(test_app=swapped)  # a rotated key: same redacted name, same file
    pytester.runpytest_inprocess("-W", "error").assert_outcomes(passed=4)


def test_cassette_files_of_secret_ids_are_redacted_and_kept_apart(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_rec=CASSETTE_TEST)
    recorded = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "--hookproof-record-mode=once"
    )
    recorded.assert_outcomes(passed=2)
    names = _names(pytester, "*.json")
    assert len(names) == 2
    assert all(map(_no_secret, names)), names
    contents = [(pytester.path / name).read_text() for name in names]
    assert all(map(_no_secret, contents))
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_cassette_path_redacts_a_secret_and_refuses_one_it_cannot_tell_apart(
    tmp_path: Path,
) -> None:
    nodeid = f"tests/test_x.py::test_y[redis://:{FIRST}@cache/0]"
    path = cassette_path(tmp_path, "recording", nodeid, parameters={"dsn": 3})
    assert _no_secret(str(path))
    assert path.name == "test_y[redis___[REDACTED]_cache_0]-param3.json"
    with pytest.raises(InvalidInputError, match="holds a secret") as refused:
        cassette_path(tmp_path, "recording", nodeid)
    assert _no_secret(str(refused.value))


def test_a_name_without_a_secret_is_kept_as_it_is() -> None:
    assert redact_file_name("test_y[plain-1]", {"x": 0}) == "test_y[plain-1]"
    assert redact_file_name(f"test_y[{GITHUB}]", {"x": 0, "y": 2}) == "test_y[[REDACTED]]-param0-2"
