"""Where a test's cassette lives: ``<rootdir>/<recording dir>/<module path>/<test>.json``."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path

from hookproof.errors import UsageError
from hookproof.redaction import redact_file_name

__all__ = ["cassette_path"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-\[\]]")
_LONGEST_NAME = 120


def cassette_path(
    rootdir: str | Path,
    recording_dir: str | Path,
    nodeid: str,
    *,
    parameters: Mapping[str, int] | None = None,
) -> Path:
    """The cassette of the test ``nodeid`` (``tests/test_x.py::TestA::test_b[1]`` gives
    ``<recording_dir>/tests/test_x/TestA.test_b[1].json``); a recording directory outside
    ``rootdir`` is refused, as cassettes are committed with the project. A secret in the
    name is redacted, and ``parameters`` (the test's ``callspec.indices``) keep two such
    names apart; without them a name holding a secret is refused (``redact_file_name``)."""
    root = Path(rootdir).resolve()
    directory = (root / recording_dir).resolve()
    if not directory.is_relative_to(root):
        raise UsageError(
            f"hookproof: the recording directory {str(recording_dir)!r} leads to {directory}, "
            f"outside the rootdir {root}. Cassettes belong with the project, committed and "
            "reviewed beside its tests. Set hookproof_recording_dir to a path inside the "
            "rootdir, e.g. hookproof_recording_dir = recording."
        )
    module, _, name = nodeid.partition("::")
    *folders, last = Path(module).parts or ("",)
    parts = [_folder_name(redact_file_name(part)) for part in (*folders, Path(last).stem)]
    test = redact_file_name(name.replace("::", ".") or "module", parameters)
    return directory.joinpath(*parts) / f"{_file_name(test)}.json"


def _folder_name(part: str) -> str:
    """One folder of the module's path, always a plain name inside: dots alone (``..`` of a
    test outside the rootdir, what ``...py`` leaves) become underscores."""
    safe = _file_name(part)
    return "_" * len(safe) if not safe.strip(".") else safe


def _file_name(name: str) -> str:
    safe = _UNSAFE.sub("_", name)
    if len(safe) <= _LONGEST_NAME:
        return safe
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:12]
    return f"{safe[: _LONGEST_NAME - 13]}-{digest}"
