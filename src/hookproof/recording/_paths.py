"""Where a test's cassette lives: ``<rootdir>/<recording dir>/<module path>/<test>.json``."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from hookproof.errors import UsageError

__all__ = ["cassette_path"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-\[\]]")
_LONGEST_NAME = 120


def cassette_path(rootdir: str | Path, recording_dir: str | Path, nodeid: str) -> Path:
    """The cassette of the test ``nodeid`` (``tests/test_x.py::TestA::test_b[1]`` gives
    ``<recording_dir>/tests/test_x/TestA.test_b[1].json``); a recording directory outside
    ``rootdir`` is refused, as cassettes are committed with the project."""
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
    # A test outside the rootdir has a node id starting with "../": keep it inside anyway.
    parts = [_file_name(part) if part != ".." else "__" for part in Path(module).parts]
    folder = directory.joinpath(*parts).with_suffix("")
    return folder / f"{_file_name(name.replace('::', '.') or 'module')}.json"


def _file_name(name: str) -> str:
    safe = _UNSAFE.sub("_", name)
    if len(safe) <= _LONGEST_NAME:
        return safe
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:12]
    return f"{safe[: _LONGEST_NAME - 13]}-{digest}"
