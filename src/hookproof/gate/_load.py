"""Reading a snapshot directory for the gate, failing closed on anything unreadable.

Every ``*.txt`` file under a directory is a snapshot and must be read; other names
(README.md, .gitkeep) are not looked at. A ``*.txt`` that cannot be read (a byte-order mark,
not UTF-8, another format, truncated, a directory, FIFO or device, a link to anything but a
regular file inside the directory) and any link to a directory is a problem; the caller
reports every problem of both directories at once, before anything is compared.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hookproof._support.safe_files import MAX_FILE_BYTES, check_inside, kind_of
from hookproof.errors import InvalidInputError, SnapshotFormatError, UnsafePathError
from hookproof.snapshot import RequestView, parse
from hookproof.snapshot.files import BOM, is_snapshot_name, read_regular_file

__all__ = ["Unreadable", "load_directory", "require_directory", "unreadable_error"]


@dataclass(frozen=True)
class Unreadable:
    path: Path
    reason: str


def require_directory(directory: Path, role: str) -> None:
    if not directory.is_dir():
        raise InvalidInputError(
            f"hookproof: the {role} directory {str(directory)!r} does not exist or is not a "
            "directory. Pass the snapshot directories written before and after the upgrade."
        )


def _candidate_paths(directory: Path, problems: list[Unreadable]) -> Iterator[Path]:
    """Every entry named ``*.txt``, of any kind, and every link to a directory (not entered)."""

    def unlisted(error: OSError) -> None:
        where = Path(error.filename) if error.filename else directory
        problems.append(Unreadable(where, f"cannot be listed ({error.strerror or error})"))

    for root, subdirectories, files in os.walk(directory, onerror=unlisted):
        here = Path(root)
        for name in subdirectories:
            path = here / name
            if path.is_symlink() or is_snapshot_name(path):
                yield path
        yield from (here / name for name in files if is_snapshot_name(Path(name)))


def _kind(path: Path) -> str:
    """What a path that is not a regular file is, links followed."""
    kind = kind_of(path)
    return "gone (removed while the gate ran)" if kind == "missing" else kind


def _universal_newlines(text: str) -> str:
    """Line endings as pytest's text-mode read gives them: CRLF and CR become LF.

    hookproof writes LF only (a carriage return in a request shows as ``\\r``), so CRLF comes
    from a checkout (git's core.autocrlf on Windows) and converting it loses nothing.
    """
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _read(path: Path, directory: Path) -> bytes | str:
    """The file's bytes, or why it cannot be read. A link out of ``directory`` is not
    followed: a pull request could otherwise make the gate print any file's first line
    (``/proc/self/environ``) into a CI log."""
    try:
        check_inside(path, directory)
    except UnsafePathError as error:
        return error.problem
    try:
        data = read_regular_file(path, MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return f"is {_kind(path)}"
    except OSError as error:
        return f"cannot be read ({error.strerror or error})"
    if data is None:
        return f"is {_kind(path)}, not a regular file"
    if len(data) > MAX_FILE_BYTES:
        return f"is larger than {MAX_FILE_BYTES} bytes (is it corrupted?)"
    return data


def _load(path: Path, directory: Path) -> RequestView | str:
    """The snapshot at ``path``, or why it cannot be read as one."""
    data = _read(path, directory)
    if isinstance(data, str):
        return data
    if data.startswith(BOM):
        return "starts with a byte-order mark (U+FEFF), which hookproof never writes"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"is not UTF-8 text (byte {error.start} is {data[error.start]:#04x})"
    try:
        return parse(_universal_newlines(text), source=str(path))
    except SnapshotFormatError as error:
        return error.problem


def load_directory(directory: Path, problems: list[Unreadable]) -> dict[str, RequestView]:
    """Every snapshot under ``directory`` by relative path; what cannot be read goes to
    ``problems``."""
    views = {}
    for path in _candidate_paths(directory, problems):
        loaded = _load(path, directory)
        if isinstance(loaded, str):
            problems.append(Unreadable(path, loaded))
        else:
            views[path.relative_to(directory).as_posix()] = loaded
    return views


def unreadable_error(problems: list[Unreadable]) -> InvalidInputError:
    listing = "\n".join(
        f"  {problem.path}: {problem.reason}"
        for problem in sorted(problems, key=lambda problem: str(problem.path))
    )
    count = f"{len(problems)} file{'s' if len(problems) != 1 else ''}"
    return InvalidInputError(
        f"hookproof: {count} in the snapshot directories cannot be read as hookproof "
        f"snapshots:\n{listing}\nThe gate fails closed: an unread snapshot could hide a removed "
        "tool or a newly visible one. Every *.txt file under both directories must be a "
        "snapshot in this hookproof's format: regenerate them with `pytest --snapshot-update`, "
        "copy linked directories in as real ones, and give other files another extension "
        "(README.md or .gitkeep are never read)."
    )
