"""Every file hookproof reads or writes goes through here: snapshots, pending snapshots,
cassettes, reports.

Reading opens regular files only (a FIFO would block, ``/dev/zero`` never ends, a directory
cannot be read), caps the size, and decodes UTF-8 and JSON with a bounded nesting depth, so
a damaged or hostile file is a ``FileAccessError`` naming the problem, never a hang, a
``MemoryError`` or a ``RecursionError``. Writing is atomic (a temporary file beside the
target, then ``os.replace``) and, given a root, refuses a path that leaves it at any level:
by ``..``, an absolute path or a symbolic link, the last one included.

Imported while pytest collects, so it imports nothing beyond the standard library (and
hookproof.errors).
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from hookproof.errors import FileAccessError, UnsafePathError

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_JSON_DEPTH",
    "check_inside",
    "kind_of",
    "load_json",
    "read_bytes",
    "read_regular_file",
    "read_text",
    "remove_file",
    "write_text",
]

MAX_FILE_BYTES = 64 * 1024 * 1024  # far above any snapshot or cassette a test writes
MAX_JSON_DEPTH = 128  # deeper than any schema or answer; shallow enough for every recursion
# O_NONBLOCK: should the path become a FIFO between the stat and the open, open() returns.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_SPECIAL_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def kind_of(path: Path) -> str:
    """What ``path`` is when it is not a regular file, links followed (``a directory``,
    ``a symbolic link to a named pipe (FIFO)``, ...)."""
    link = "a symbolic link to " if path.is_symlink() else ""
    try:
        mode = path.stat().st_mode
    except OSError:
        return f"{link}a missing file" if link else "missing"
    if stat.S_ISREG(mode):
        return f"{link}a regular file"
    return link + next((name for test, name in _SPECIAL_KINDS if test(mode)), "a special file")


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


def read_bytes(path: Path, *, root: Path | None = None, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file ``path`` (inside ``root`` when given), at most ``limit``;
    a FileAccessError saying why not otherwise."""
    if root is not None:
        check_inside(path, root)
    try:
        if os.stat(path).st_size > limit:  # refused unread; the read below is capped anyway
            raise _access_error(path, f"is larger than {limit} bytes (is it corrupted?)")
        data = read_regular_file(path, limit + 1)
    except OSError as error:
        raise _access_error(path, f"cannot be read ({error.strerror or error})") from None
    if data is None:
        raise _access_error(path, f"is {kind_of(path)}, not a regular file")
    if len(data) > limit:
        raise _access_error(path, f"is larger than {limit} bytes (is it corrupted?)")
    return data


def read_text(path: Path, *, root: Path | None = None, limit: int = MAX_FILE_BYTES) -> str:
    """``read_bytes`` decoded as UTF-8."""
    data = read_bytes(path, root=root, limit=limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        problem = f"is not UTF-8 text (byte {error.start} is {data[error.start]:#04x})"
        raise _access_error(path, problem) from None


def load_json(text: str, *, source: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` of ``text``, refusing nesting deeper than ``max_depth`` (everything
    that walks the data recurses once per level), numbers too long for ``int`` and invalid
    JSON, each as a FileAccessError."""
    too_deep = _access_error(source, f"nests JSON deeper than {max_depth} levels")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise _access_error(source, f"is not JSON ({error})") from None
    except RecursionError:  # the parser's own limit, far deeper than ours
        raise too_deep from None
    except ValueError:  # only the digit limit of int() gets here
        raise _access_error(source, "holds a number with too many digits") from None
    if _deeper_than(data, max_depth):
        raise too_deep
    return data


def _deeper_than(data: Any, limit: int) -> bool:
    """Whether containers nest more than ``limit`` deep (walked without recursion)."""
    pending = [(data, 1)] if isinstance(data, dict | list) else []
    while pending:
        node, depth = pending.pop()
        if depth > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        pending.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def check_inside(path: Path, root: Path) -> None:
    """UnsafePathError unless ``path`` stays inside ``root`` at every level: written
    (no ``..`` or absolute path leaving it) and resolved (no symbolic link, the last
    component's included, pointing out of it)."""
    lexical = Path(os.path.abspath(path))
    resolved_root = Path(root).resolve()
    resolved = Path(path).resolve()
    inside = lexical.is_relative_to(os.path.abspath(root)) or lexical.is_relative_to(resolved_root)
    if inside and resolved.is_relative_to(resolved_root):
        return
    raise UnsafePathError(
        f"hookproof: {str(path)!r} resolves to {str(resolved)!r}, outside "
        f"{str(resolved_root)!r} (by '..', an absolute path or a symbolic link). hookproof "
        "reads and writes its files only inside the project, so a checked-out link cannot "
        "make a test run write anywhere on the disk. Replace the link by a real directory "
        "or file, or move the target inside the project.",
        problem=f"resolves to {str(resolved)!r}, outside {str(resolved_root)!r}",
    )


def write_text(
    path: Path, text: str, *, root: Path | None = None, make_parents: bool = True
) -> None:
    """Replace ``path`` with ``text`` atomically: a temporary file in the same (checked)
    directory, then ``os.replace``. A reader sees the old file or the new one, and a failed
    write leaves the old one as it was. With ``root``, every level must stay inside it;
    without ``make_parents``, the directory must exist."""
    if root is not None:
        check_inside(path, root)
    if make_parents:
        _make_directories(path.parent, root)
    elif not path.parent.is_dir():
        raise _access_error(path.parent, f"is {kind_of(path.parent)}, not a directory")
    if path.is_dir() and not path.is_symlink():
        raise _access_error(path, "is a directory, which hookproof will not replace")
    try:
        handle, temporary = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name[:80]}.", suffix=".tmp"
        )
    except OSError as error:
        raise _access_error(path, f"cannot be written ({error.strerror or error})") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise _access_error(path, f"cannot be written ({error.strerror or error})") from None
        raise


def _make_directories(directory: Path, root: Path | None) -> None:
    """Create ``directory`` one level at a time, checking each level as it appears (a link
    put there meanwhile is refused before anything is written through it)."""
    missing = []
    here = directory
    while not here.exists() and not here.is_symlink() and here != here.parent:
        missing.append(here)
        here = here.parent
    for level in reversed(missing):
        try:
            level.mkdir(exist_ok=True)
        except OSError as error:
            raise _access_error(level, f"cannot be created ({error.strerror or error})") from None
        if root is not None:
            check_inside(level, root)
    if not directory.is_dir():
        raise _access_error(directory, f"is {kind_of(directory)}, not a directory")


def remove_file(path: Path, *, root: Path | None = None) -> None:
    """Remove ``path`` if it is there, a regular file or a link (never through a link out
    of ``root``)."""
    if root is not None:
        check_inside(path.parent, root)
    if path.is_dir() and not path.is_symlink():
        raise _access_error(path, "is a directory, which hookproof will not remove")
    path.unlink(missing_ok=True)


def _access_error(path: Path | str, problem: str) -> FileAccessError:
    return FileAccessError(
        f"hookproof: {str(path)!r} {problem}. hookproof reads and writes only regular UTF-8 "
        "files of its own formats; restore the file from version control or delete it and "
        "run the tests again to write it afresh.",
        problem=problem,
    )
