"""The test's cassette: where it lives, whether it records (then the guard lets sockets reach
the provider), and the Cassette the ``hookproof_cassette`` fixture hands the test.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from hookproof.plugin._options import HookproofOptions
    from hookproof.recording import Cassette

__all__ = ["cassette_for", "cassette_path", "recording_hosts"]

_ANY_HOST = ("0.0.0.0/0", "::/0")


def cassette_path(item: pytest.Item) -> Path:
    from hookproof.recording import cassette_path as path_in

    directory = item.config.getini("hookproof_recording_dir") or "recording"
    callspec = getattr(item, "callspec", None)
    parameters = callspec.indices if callspec is not None else None
    return path_in(item.config.rootpath, directory, item.nodeid, parameters=parameters)


def recording_hosts(item: pytest.Item, options: HookproofOptions) -> tuple[str, ...]:
    """Every host, while the test's cassette records: the provider it records is not on
    this machine. Models the cassette does not wrap stay blocked."""
    if "hookproof_cassette" not in getattr(item, "fixturenames", ()):
        return ()
    from hookproof.errors import InvalidInputError, UsageError
    from hookproof.recording import RecordMode

    try:
        path = cassette_path(item)
        exists = path.exists() or path.is_symlink()  # as the Cassette sees it: a link is there
    except (UsageError, InvalidInputError):  # the fixture reports it; the guard stays closed
        return ()
    return _ANY_HOST if RecordMode.parse(options.record_mode).records(exists) else ()


def cassette_for(item: pytest.Item, options: HookproofOptions) -> Cassette:
    from hookproof.recording import Cassette

    matchers = options.matchers
    return Cassette(
        cassette_path(item),
        record_mode=options.record_mode,
        test=item.nodeid,
        matchers=None if matchers is None else tuple(matchers),
        normalise_ids=options.normalise_ids,
        root=item.config.rootpath,
    )
