"""Snapshot files on disk: where they live and how to recognise one without trusting it.

Used by the pytest plugin while pytest collects (for every ``*.txt`` path it meets), by the
snapshot extension and by the gate, so it imports nothing beyond the standard library. Only
regular files are ever opened: a FIFO, socket or device named ``*.txt`` would block a read or
have side effects, so those are recognised from ``stat`` alone.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

__all__ = [
    "BOM",
    "DEFAULT_SNAPSHOT_DIR",
    "HEADER",
    "SNAPSHOT_DIR_INI",
    "SNAPSHOT_SUFFIX",
    "has_snapshot_header",
    "is_snapshot_name",
    "read_regular_file",
    "snapshot_root",
]

HEADER = "hookproof final request, format "
SNAPSHOT_SUFFIX = ".txt"
DEFAULT_SNAPSHOT_DIR = "snapshots"
SNAPSHOT_DIR_INI = "hookproof_snapshot_dir"
BOM = b"\xef\xbb\xbf"
_HEADER_BYTES = HEADER.encode("ascii")
# O_NONBLOCK: should the path become a FIFO between the stat and the open, open() still returns.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def is_snapshot_name(path: Path) -> bool:
    """Only ``*.txt`` files are snapshots; README.md, .gitkeep and the like never are."""
    return path.name.lower().endswith(SNAPSHOT_SUFFIX)


def read_regular_file(path: Path, limit: int = -1) -> bytes | None:
    """The bytes of a regular file (at most ``limit``), or None for anything else.

    Symbolic links are followed; a link to anything but a regular file gives None. OSError
    (missing, permission denied) propagates.
    """
    if not stat.S_ISREG(os.stat(path).st_mode):
        return None
    descriptor = os.open(path, _OPEN_FLAGS)
    with os.fdopen(descriptor, "rb") as stream:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        return stream.read(limit)


def has_snapshot_header(path: Path) -> bool:
    """True when ``path`` is a regular file whose first bytes are the snapshot header.

    A byte-order mark before the header still counts: the file is a (damaged) snapshot.
    """
    try:
        start = read_regular_file(path, len(BOM) + len(_HEADER_BYTES))
    except OSError:
        return False
    return start is not None and start.removeprefix(BOM).startswith(_HEADER_BYTES)


def snapshot_root(config: Any, directory: str | None = None) -> Path:
    """``<rootdir>/<directory>``; without one, the ini option, else ``snapshots``."""
    return Path(config.rootpath) / (directory or _ini_directory(config))


def _ini_directory(config: Any) -> str:
    try:
        value = config.getini(SNAPSHOT_DIR_INI)
    except ValueError:  # the plugin is disabled, so the option was never registered
        value = ""
    return str(value) if value else DEFAULT_SNAPSHOT_DIR
