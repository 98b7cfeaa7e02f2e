"""What the session sets up once, before any test: the hypothesis profile, the shared example
database, the extra redaction, and the check of the snapshot directory. A mistake in any of
them stops the run with a usage error, before a test could pass on a wrong setting.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import pytest

from hookproof.errors import InvalidInputError

if TYPE_CHECKING:
    from hookproof.redaction import Redaction

__all__ = [
    "check_snapshot_dir",
    "configure_example_database",
    "configure_redaction",
    "load_requested_profile",
    "requested_profile",
]

_Result = TypeVar("_Result")


def _refusing(build: Callable[[], _Result]) -> _Result:
    """``build()``; a setting hookproof refuses stops the run as pytest's usage errors do."""
    try:
        return build()
    except InvalidInputError as error:
        raise pytest.UsageError(str(error)) from error


def requested_profile(config: pytest.Config) -> str | None:
    explicit = os.environ.get("HYPOTHESIS_PROFILE")
    try:
        option = config.getoption("hypothesis_profile")
    except ValueError:
        option = None
    return option or explicit or ("ci" if os.environ.get("CI") else None)


def load_requested_profile(profile: str | None) -> None:
    """Register and load hookproof's profile ``profile``, if it is one of them."""
    if profile in ("ci", "dev", "deep") and importlib.util.find_spec("hypothesis") is not None:
        # Only here is hypothesis imported: a profile was asked for, so it is in use.
        from hypothesis import settings

        from hookproof.contracts.profiles import register_profiles

        register_profiles()
        settings.load_profile(profile)


def configure_example_database(config: pytest.Config, profile: str | None) -> str | None:
    """Share hypothesis' failing examples through the database the options name; returns
    the setting in force, if any."""
    spec = config.getoption("hookproof_example_database") or config.getini(
        "hookproof_example_database"
    )
    write = bool(config.getoption("hookproof_example_database_write"))
    if not spec:
        if write:
            raise pytest.UsageError(_WRITE_WITHOUT_DATABASE)
        return None
    if importlib.util.find_spec("hypothesis") is None:
        raise pytest.UsageError(_NO_HYPOTHESIS)
    from hookproof.plugin._example_db import apply_example_database, open_database

    database = _refusing(
        lambda: open_database(
            spec,
            config.rootpath,
            writes=write or profile != "ci",
            outside_rootdir=config.getini("hookproof_example_database_outside_rootdir"),
        )
    )
    apply_example_database(database, requested_profile=profile, write=write)
    return str(spec)


_WRITE_WITHOUT_DATABASE = (
    "hookproof: --hookproof-example-database-write was given without an example database, so "
    "nothing would be shared; set hookproof_example_database or --hookproof-example-database "
    "too."
)
_NO_HYPOTHESIS = (
    "hookproof: an example database is set but hypothesis is not installed; install it with "
    "`pip install 'hookproof[test]'`."
)


def configure_redaction(config: pytest.Config) -> Redaction | None:
    """Install the ini's extra redaction fields and patterns for this session; returns the
    redaction it replaced (None when the ini adds nothing). An invalid pattern stops the run,
    since the secret it was written for would reach the files."""
    fields = [
        name.strip()
        for line in config.getini("hookproof_redact_fields")
        for name in line.split(",")
        if name.strip()
    ]
    patterns = config.getini("hookproof_redact_patterns")
    if not fields and not patterns:
        return None
    from hookproof.redaction import Redaction, active_redaction, configure_redaction

    extra = _refusing(lambda: Redaction(fields=tuple(fields), patterns=tuple(patterns)))
    return configure_redaction(active_redaction().including(extra))


def check_snapshot_dir(config: pytest.Config) -> None:
    """A snapshot directory outside the rootdir (by the ini option or a symbolic link)
    stops the run before any test; a marker's is checked by ``hookproof_snapshot``."""
    from hookproof.snapshot.files import snapshot_root

    _refusing(lambda: snapshot_root(config))
