"""Snapshot files on disk: where they live and how to recognise one without trusting it.

Used by the pytest plugin while pytest collects (for every ``*.txt`` path it meets), by the
snapshot extension and by the gate, so it imports nothing beyond the standard library;
``hookproof.snapshot`` loads its names on first use, so importing this module stays cheap.
Only regular files are ever opened (``hookproof._support.safe_files``): a FIFO, socket or device
named ``*.txt`` would block a read or have side effects, so those are recognised from
``stat`` alone.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hookproof._support.safe_files import read_regular_file

__all__ = [
    "BOM",
    "DEFAULT_SNAPSHOT_DIR",
    "HEADER",
    "OUTSIDE_ROOTDIR_INI",
    "PENDING_SUFFIX",
    "SNAPSHOT_DIR_INI",
    "SNAPSHOT_SUFFIX",
    "check_inside_rootdir",
    "has_snapshot_header",
    "is_snapshot_name",
    "read_regular_file",
    "snapshot_root",
]

HEADER = "hookproof final request, format "
SNAPSHOT_SUFFIX = ".txt"
PENDING_SUFFIX = ".pending"  # a proposed snapshot beside the reviewed one: <name>.txt.pending
DEFAULT_SNAPSHOT_DIR = "snapshots"
SNAPSHOT_DIR_INI = "hookproof_snapshot_dir"
OUTSIDE_ROOTDIR_INI = "hookproof_snapshot_dir_outside_rootdir"
BOM = b"\xef\xbb\xbf"
_HEADER_BYTES = HEADER.encode("ascii")


def is_snapshot_name(path: Path) -> bool:
    """Only ``*.txt`` files are snapshots; README.md, .gitkeep and the like never are."""
    return path.name.lower().endswith(SNAPSHOT_SUFFIX)


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
    """``<rootdir>/<directory>``; without one, the ini option, else ``snapshots``.

    A directory outside the rootdir is refused (see ``check_inside_rootdir``).
    """
    root = Path(config.rootpath)
    base = root / _checked_directory(directory or _ini_directory(config))
    if not _ini(config, OUTSIDE_ROOTDIR_INI, False):
        check_inside_rootdir(base, root)
    return base


def _checked_directory(directory: object) -> str:
    text = os.fspath(directory) if isinstance(directory, os.PathLike) else directory
    if isinstance(text, str) and "\x00" not in text:
        return text
    from hookproof.errors import InvalidInputError, UsageError  # only on the error path

    if isinstance(text, str):
        raise InvalidInputError(
            f"hookproof: the snapshot directory {text!r} contains a NUL character, which no "
            "path can hold. Fix hookproof_snapshot_dir or the marker's snapshot_dir."
        )
    raise UsageError(
        "hookproof: the snapshot directory must be a str (a path relative to the rootdir), "
        f"got {type(directory).__name__} {directory!r:.60}. Fix the marker's snapshot_dir."
    )


def check_inside_rootdir(base: Path, root: Path) -> None:
    """Raise InvalidInputError when ``base`` leaves ``root``, by ``..``, an absolute path or
    a symbolic link: ``--snapshot-update`` writes there, so a setting from a checked-out
    project must not reach the rest of the disk."""
    lexical = Path(os.path.normpath(base))
    if lexical.is_relative_to(root) and base.resolve().is_relative_to(root.resolve()):
        return
    from hookproof.errors import InvalidInputError  # only on the error path

    raise InvalidInputError(
        f"hookproof: the snapshot directory {str(base)!r} (resolved: {str(base.resolve())!r}) "
        f"is outside the project's root directory {str(root)!r}. Snapshot updates write files "
        "there, so a setting that leaves the rootdir could write anywhere on the disk. Use a "
        f"directory under the rootdir, or, if you mean it, set `{OUTSIDE_ROOTDIR_INI} = true` "
        "in the ini file."
    )


def _ini_directory(config: Any) -> str:
    value = _ini(config, SNAPSHOT_DIR_INI, "")
    return str(value) if value else DEFAULT_SNAPSHOT_DIR


def _ini(config: Any, name: str, default: Any) -> Any:
    try:
        return config.getini(name)
    except ValueError:  # the plugin is disabled, so the option was never registered
        return default
