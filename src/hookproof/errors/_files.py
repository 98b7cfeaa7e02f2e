"""Errors of the files hookproof reads and writes: snapshots, cassettes, any file."""

from __future__ import annotations

from hookproof.errors._base import HookproofError, InvalidInputError

TYPE_CHECKING = False  # typing itself costs `import hookproof` several ms; mypy sees True
if TYPE_CHECKING:
    from typing import Any


class SnapshotFormatError(InvalidInputError):
    """A snapshot file is not in the format this hookproof reads.

    ``problem`` is the reason alone (e.g. ``its first line is 'x'``), for reports that list
    several files.
    """

    def __init__(self, message: str, problem: str) -> None:
        super().__init__(message)
        self.problem = problem


class FileAccessError(InvalidInputError):
    """A file hookproof was to read or write is not a regular file, is too large, is not
    UTF-8 text or JSON it can take, or cannot be opened. ``problem`` is the reason alone
    (e.g. ``is a named pipe (FIFO), not a regular file``), for messages that name the file
    in their own words."""

    def __init__(self, message: str, *, problem: str) -> None:
        super().__init__(message)
        self.problem = problem


class UnsafePathError(FileAccessError):
    """A path hookproof was to read or write leaves the project's root directory, by
    ``..``, an absolute path or a symbolic link at any level."""


class CassetteError(HookproofError):
    """A recorded model exchange cannot be replayed or recorded."""


class CassetteFormatError(CassetteError, InvalidInputError):
    """A cassette file is not in the format this hookproof reads (another version, edited
    by hand into invalid JSON, ...)."""


class MissingExchangeError(CassetteError, LookupError):
    """A model call has no recorded exchange, and the record mode does not let it record."""


class StaleCassetteError(MissingExchangeError, AssertionError):
    """A model call's request differs from the one recorded at its place: ``diff`` (a
    ``hookproof.snapshot.SnapshotDiff``) classifies what changed."""

    def __init__(self, message: str, *, diff: Any) -> None:
        super().__init__(message)
        self.diff = diff
