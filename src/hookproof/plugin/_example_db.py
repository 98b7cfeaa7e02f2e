"""The shared example database of the ``ci``, ``dev`` and ``deep`` profiles.

ini ``hookproof_example_database`` / ``--hookproof-example-database`` names a directory
(relative to the rootdir) or a ``redis://`` URL. Hypothesis saves the failing examples it
finds there and replays them first on the next run, so a failure one machine finds is the
first thing every other machine tries, already shrunk.

Who writes: the ``ci`` profile (pull requests) only reads, through hypothesis'
``ReadOnlyDatabase``, unless ``--hookproof-example-database-write`` says otherwise (a main
branch or nightly job); ``dev`` and ``deep`` (campaigns) read and write. With none of the
three in force, the database is laid over the settings in force, read-write. A profile of
the project's own keeps its own ``database`` setting.

Imported only when the option is set: it imports hypothesis (and redis for a URL).
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from hookproof._support.safe_files import check_inside
from hookproof.contracts.profiles import PROFILES, register_profiles
from hookproof.errors import InvalidInputError, UnsafePathError
from hookproof.redaction import redact_text

if TYPE_CHECKING:
    from hypothesis.database import ExampleDatabase

__all__ = [
    "OUTSIDE_ROOTDIR_INI",
    "OVERLAY_PROFILE",
    "apply_example_database",
    "describe",
    "open_database",
]

OVERLAY_PROFILE = "hookproof-example-database"
OUTSIDE_ROOTDIR_INI = "hookproof_example_database_outside_rootdir"
_REDIS_SCHEMES = ("redis", "rediss", "unix")


def describe(spec: str) -> str:
    """``spec`` as a message or report may show it: a URL of any scheme without its user
    name, password and query (which may hold ``?password=``), anything else redacted."""
    if "://" not in spec:
        return redact_text(spec)
    scheme = redact_text(spec.partition("://")[0])
    try:
        parts = urlsplit(spec)
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # a port that is no number, an unclosed "[": show no more of it
        return f"{scheme}://..."
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    return redact_text(f"{scheme}://{host}{port}{parts.path}")


def open_database(
    spec: str, rootdir: Path, *, writes: bool = True, outside_rootdir: bool = False
) -> ExampleDatabase:
    """The database ``spec`` names, checked once so that no test meets a broken one: a
    usage mistake is an InvalidInputError. ``writes``: whether a profile in force may save
    to it; ``outside_rootdir``: the project lets a directory leave the rootdir."""
    value = spec.strip()
    if not value:
        raise InvalidInputError(
            "hookproof: hookproof_example_database is empty. Failures would not be shared; "
            "give a directory (e.g. .hypothesis/shared) or a redis:// URL, or unset it."
        )
    if "\x00" in value:
        raise InvalidInputError(
            "hookproof: the example database setting contains a NUL character, which no path "
            "or URL can hold, so every @given test would fail opening it. Fix "
            "hookproof_example_database or --hookproof-example-database."
        )
    if "://" in value:
        return _redis_database(value)
    path = rootdir / value
    if not outside_rootdir:
        _check_inside_rootdir(path, rootdir)
    return _directory_database(path, writes=writes)


def _check_inside_rootdir(path: Path, rootdir: Path) -> None:
    try:
        check_inside(path, rootdir)
    except UnsafePathError as error:
        raise InvalidInputError(
            f"hookproof: the example database directory {str(path)!r} "
            f"{error.problem}. Hypothesis writes a file per failing example there, so a "
            "setting that leaves the rootdir could write anywhere on the disk. Use a "
            f"directory under the rootdir, or, if you mean it, set `{OUTSIDE_ROOTDIR_INI} = "
            "true` in the ini file."
        ) from None


def _directory_database(path: Path, *, writes: bool) -> ExampleDatabase:
    from hypothesis.database import DirectoryBasedExampleDatabase

    if path.exists() and not path.is_dir():
        raise InvalidInputError(
            f"hookproof: the example database {str(path)!r} is a file, not a directory. "
            "Hypothesis keeps one file per example there; give a directory path (created "
            "when missing) or a redis:// URL."
        )
    try:
        _try_directory(path, writes=writes)
    except OSError as error:
        raise InvalidInputError(
            f"hookproof: the example database directory {str(path)!r} cannot be "
            f"{'written' if writes else 'read'} ({error.strerror or error}), so every "
            "@given test would fail on it. Give a directory this user can "
            f"{'create and write' if writes else 'read'}, or unset hookproof_example_database."
        ) from None
    return DirectoryBasedExampleDatabase(str(path))


def _try_directory(path: Path, *, writes: bool) -> None:
    """Do once what hypothesis does on every example: list the directory and, when it is to
    be written, create it and a file in it."""
    if writes:
        path.mkdir(parents=True, exist_ok=True)
        handle, probe = tempfile.mkstemp(dir=path, prefix=".hookproof-probe-")
        os.close(handle)
        os.unlink(probe)
    if path.is_dir():
        os.listdir(path)


def _redis_database(url: str) -> ExampleDatabase:
    try:
        parts = urlsplit(url)  # raises on an unclosed "[" (an IPv6 host)
        parts.port  # noqa: B018 - reading it is the check: urllib raises on a bad port
    except ValueError:
        raise InvalidInputError(
            f"hookproof: the example database URL {describe(url)} has a port that is not a "
            "number from 0 to 65535, or an IPv6 host without its closing ']', so it could "
            "never be reached. Fix hookproof_example_database or --hookproof-example-database."
        ) from None
    scheme = parts.scheme
    if scheme not in _REDIS_SCHEMES:
        raise InvalidInputError(
            f"hookproof: the example database URL {describe(url)!r} has the scheme "
            f"{scheme!r}; only redis://, rediss:// and unix:// are understood. Give one of "
            "those, or a directory path."
        )
    if importlib.util.find_spec("redis") is None:
        raise InvalidInputError(
            f"hookproof: the example database {describe(url)!r} is a Redis URL, but the "
            "redis client is not installed. Install it with `pip install 'hookproof[redis]'`."
        )
    import redis
    from hypothesis.extra.redis import RedisExampleDatabase

    try:
        # A firewalled host would otherwise hold pytest's start for the system's TCP timeout.
        client = redis.Redis.from_url(url, socket_connect_timeout=30, socket_timeout=30)
        client.ping()
    except (ValueError, redis.RedisError) as error:
        raise InvalidInputError(
            f"hookproof: cannot reach the example database {describe(url)!r} ({error}). "
            "Failures found elsewhere would not replay here; start the server, fix the URL, "
            "or unset hookproof_example_database."
        ) from error
    return RedisExampleDatabase(client)


def apply_example_database(
    database: ExampleDatabase, *, requested_profile: str | None, write: bool
) -> None:
    """Give hookproof's profiles ``database`` (read-only under ``ci`` unless ``write``) and
    load the profile in force again so the change takes effect."""
    from hypothesis import settings
    from hypothesis.database import ReadOnlyDatabase

    register_profiles()
    for name in PROFILES:
        shared = database if write or name != "ci" else ReadOnlyDatabase(database)
        settings.register_profile(name, parent=settings.get_profile(name), database=shared)
    if requested_profile in PROFILES:
        settings.load_profile(requested_profile)
    elif requested_profile is None:
        settings.register_profile(OVERLAY_PROFILE, parent=settings.default, database=database)
        settings.load_profile(OVERLAY_PROFILE)
