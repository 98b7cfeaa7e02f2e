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
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from hookproof._profiles import PROFILES, register_profiles
from hookproof.errors import InvalidInputError

if TYPE_CHECKING:
    from hypothesis.database import ExampleDatabase

__all__ = ["OVERLAY_PROFILE", "apply_example_database", "describe", "open_database"]

OVERLAY_PROFILE = "hookproof-example-database"
_REDIS_SCHEMES = ("redis", "rediss", "unix")


def describe(spec: str) -> str:
    """``spec`` as a report may show it: a URL without its user name or password."""
    parts = urlsplit(spec)
    if "://" not in spec or parts.scheme not in _REDIS_SCHEMES:
        return spec
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def open_database(spec: str, rootdir: Path) -> ExampleDatabase:
    """The database ``spec`` names; a usage mistake is an InvalidInputError."""
    value = spec.strip()
    if not value:
        raise InvalidInputError(
            "hookproof: hookproof_example_database is empty. Failures would not be shared; "
            "give a directory (e.g. .hypothesis/shared) or a redis:// URL, or unset it."
        )
    if "://" in value:
        return _redis_database(value)
    return _directory_database(rootdir / value)


def _directory_database(path: Path) -> ExampleDatabase:
    from hypothesis.database import DirectoryBasedExampleDatabase

    if path.exists() and not path.is_dir():
        raise InvalidInputError(
            f"hookproof: the example database {str(path)!r} is a file, not a directory. "
            "Hypothesis keeps one file per example there; give a directory path (created "
            "when missing) or a redis:// URL."
        )
    return DirectoryBasedExampleDatabase(str(path))


def _redis_database(url: str) -> ExampleDatabase:
    scheme = urlsplit(url).scheme
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
        client = redis.Redis.from_url(url)
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
