"""--hookproof-example-database never shows the credentials of the URL it is given: not in the
error that stops a run, not in the report header."""

from __future__ import annotations

import pytest

from tests.scale.conftest import need_redis_client

pytestmark = pytest.mark.slow

PASSWORD = "hunter2pass9"


@pytest.mark.parametrize(
    "value",
    [
        f"http://u:{PASSWORD}@127.0.0.1:9/0",
        f"https://:{PASSWORD}@cache.internal/0",
        f"ftp://admin:{PASSWORD}@[::1]:21/x",
        f"redis://u:{PASSWORD}@127.0.0.1:99999/0",
        f"redis://:{PASSWORD}@[::1",
        f"http://127.0.0.1:9/0?password={PASSWORD}",
    ],
)
def test_a_refused_database_url_shows_no_password(pytester: pytest.Pytester, value: str) -> None:
    result = pytester.runpytest_subprocess(f"--hookproof-example-database={value}")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "hookproof: the example database" in output
    assert PASSWORD not in output


def test_an_unreachable_redis_shows_no_password(pytester: pytest.Pytester) -> None:
    need_redis_client()
    result = pytester.runpytest_subprocess(
        f"--hookproof-example-database=redis://:{PASSWORD}@127.0.0.1:1/0"
    )
    output = result.stdout.str() + result.stderr.str()
    assert "cannot reach the example database 'redis://127.0.0.1:1/0'" in output
    assert PASSWORD not in output


@pytest.mark.parametrize(
    ("spec", "shown"),
    [
        (f"http://u:{PASSWORD}@db.internal:80/x?token={PASSWORD}", "http://db.internal:80/x"),
        (f"rediss://:{PASSWORD}@[::1]:6380/1", "rediss://[::1]:6380/1"),
        (f"redis://u:{PASSWORD}@host:99999/0", "redis://..."),
        (f"shared/api_key={PASSWORD}", "shared/api_key=[REDACTED]"),
    ],
)
def test_every_form_of_setting_is_described_without_its_credentials(spec: str, shown: str) -> None:
    from hookproof.plugin._example_db import describe

    assert describe(spec) == shown
