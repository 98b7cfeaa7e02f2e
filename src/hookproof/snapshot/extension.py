"""The syrupy extension behind the ``hookproof_snapshot`` fixture.

One readable text file per assertion, under ``<rootdir>/<snapshot_dir>/<test path>/``,
written atomically. A file in another format version is reported as needing regeneration
(``--snapshot-update``). A failing comparison shows the semantic diff first, then the text
diff. Imported only when a test asks for the fixture: it imports syrupy.

Unused snapshots: syrupy calls a discovered snapshot unused when no test used it and its test
module was collected. It cannot map this layout (``snapshots/<test path>/``) back to a test
module, and a module skipped at import (``pytest.importorskip``) counts as collected though it
yielded no test. So discovery here leaves out the snapshots of a test module that exists but
was not collected completely this session: they belong to tests that did not run. Snapshots of
a module that ran, or no longer exists, are discovered as usual and reported when unused.

Pending snapshots (``--hookproof-pending``): a failing comparison writes what the test received
beside the reviewed file as ``<name>.txt.pending`` (``write_pending``), for ``hookproof
review`` to accept or reject. Discovery never counts a pending file as a snapshot, so it is
neither compared nor reported unused.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from syrupy.data import SnapshotCollections
from syrupy.exceptions import TaintedSnapshotError
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from hookproof._support.safe_files import read_text, remove_file, write_text
from hookproof.errors import SnapshotFormatError, UsageError
from hookproof.redaction import redact_file_name, redact_text
from hookproof.requests import FinalRequest
from hookproof.snapshot._diff import diff
from hookproof.snapshot._normalise import DEFAULT_MATCHERS, Matcher
from hookproof.snapshot._parse import check_version, parse
from hookproof.snapshot._render import as_written_in, render
from hookproof.snapshot._request_view import RequestView
from hookproof.snapshot.collected import collected_modules
from hookproof.snapshot.files import HEADER, PENDING_SUFFIX, snapshot_root
from hookproof.snapshot.findings import diff_lines, group_findings, sections_for

if TYPE_CHECKING:
    from syrupy.data import SnapshotCollection
    from syrupy.location import PyTestLocation
    from syrupy.types import (
        PropertyFilter,
        PropertyMatcher,
        SerializableData,
        SerializedData,
        SnapshotIndex,
    )

__all__ = ["PENDING_SUFFIX", "HookproofSnapshotExtension", "extension_for", "failure_sections"]


class HookproofSnapshotExtension(SingleFileSnapshotExtension):
    """Final requests as hookproof's canonical text, one ``.txt`` file per assertion."""

    _write_mode = WriteMode.TEXT
    file_extension = "txt"
    matchers: Sequence[Matcher] = DEFAULT_MATCHERS
    normalise_ids: bool = True
    snapshot_dir: str | None = None
    updating: bool = False  # under --snapshot-update, a format-1 file gains its provenance
    # Every snapshot read or written stays inside it, links followed (the rootdir, or the
    # snapshot directory itself when it may be outside).
    root: str | None = None

    def serialize(
        self,
        data: SerializableData,
        *,
        exclude: PropertyFilter | None = None,
        include: PropertyFilter | None = None,
        matcher: PropertyMatcher | None = None,
    ) -> SerializedData:
        if not isinstance(data, FinalRequest | RequestView):
            raise UsageError(
                "hookproof: hookproof_snapshot compares final requests, e.g. "
                f"`assert recording_model.last == hookproof_snapshot`, not a "
                f"{type(data).__name__}. Use syrupy's `snapshot` fixture for other data."
            )
        return render(data, matchers=self.matchers, normalise_ids=self.normalise_ids)

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        config = test_location.item.config
        test_file = Path(test_location.filepath)
        try:
            relative = test_file.relative_to(config.rootpath)
        except ValueError:
            relative = Path(test_file.name)
        base = snapshot_root(config, cls.snapshot_dir)
        return str(base / relative.parent / test_location.basename)

    @classmethod
    def get_snapshot_name(cls, *, test_location: PyTestLocation, index: SnapshotIndex = 0) -> str:
        """syrupy's name, its secrets redacted (``redact_file_name``) before syrupy drops
        the characters a file name cannot hold, which would hide a URL's password."""
        name = redact_file_name(test_location.snapshot_name, _parameters(test_location))
        if name == test_location.snapshot_name:
            return super().get_snapshot_name(test_location=test_location, index=index)
        renamed: Any = _Renamed(test_location, name)
        return super().get_snapshot_name(test_location=renamed, index=index)

    @classmethod
    def matches_test_location(
        cls, *, test_location: PyTestLocation, snapshot_location: str
    ) -> bool:
        """syrupy's match, and the file of a test whose name was redacted: syrupy compares
        file names with the test's own id, which the redacted name no longer starts with."""
        if super().matches_test_location(
            test_location=test_location, snapshot_location=snapshot_location
        ):
            return True
        name = cls.get_snapshot_name(test_location=test_location)
        location = Path(snapshot_location)
        redacted = name != test_location.snapshot_name
        stem = location.name.removesuffix(f".{cls.file_extension}")
        named = stem == name or stem.startswith((f"{name}.", f"{name}["))
        in_place = location.parent.name == test_location.basename
        return redacted and named and in_place

    def discover_snapshots(
        self, *, test_location: PyTestLocation, ignore_extensions: list[str] | None = None
    ) -> SnapshotCollections:
        """syrupy's discovery, without the snapshots of test modules that did not run."""
        found = super().discover_snapshots(
            test_location=test_location, ignore_extensions=ignore_extensions
        )
        config = test_location.item.config
        collected = collected_modules(config)
        base = snapshot_root(config, self.snapshot_dir)
        kept = SnapshotCollections()
        for collection in found:
            if collection.location.endswith(PENDING_SUFFIX):
                continue
            owner = _owning_module(Path(collection.location), base, config.rootpath)
            if collected is None or not _did_not_run(owner, collected):
                kept.add(collection)
        return kept

    def read_snapshot_data_from_location(
        self, *, snapshot_location: str, snapshot_name: str, session_id: str
    ) -> SerializableData | None:
        """The file's text (None when there is none), read as ``hookproof._support.safe_files``
        reads: a FIFO, device, directory or a link out of the project is an error, not a
        hang; line endings as a text-mode read gives them."""
        path = Path(snapshot_location)
        if not path.exists() and not path.is_symlink():
            return None
        data = read_text(path, root=_root(self.root)).replace("\r\n", "\n").replace("\r", "\n")
        # Redacted as read: syrupy shows this text (the fixture's repr, its diff), and a file
        # written before a secret's format was known may hold it. What is compared with it
        # is rendered, so redacted, too.
        data = redact_text(data)
        try:
            check_version(data, snapshot_location)
        except SnapshotFormatError as error:
            raise TaintedSnapshotError(snapshot_data=data) from error
        return data

    @classmethod
    def write_snapshot_collection(
        cls, *, snapshot_collection: SnapshotCollection, name_order: dict[str, int] | None = None
    ) -> None:
        data = next(iter(snapshot_collection)).data
        if not isinstance(data, str):
            raise UsageError(f"hookproof: cannot write {type(data).__name__} as a snapshot.")
        write_text(Path(snapshot_collection.location), data, root=_root(cls.root))

    def matches(self, *, serialized_data: Any, snapshot_data: Any) -> bool:
        """Equal text; a snapshot reviewed in an older format (before provenance, format 1,
        or before the sending subagent was named, format 2) is compared with what that
        format says of the request, what it cannot say aside (and rewritten with it under
        --snapshot-update)."""
        reviewed = _older_version(snapshot_data)
        if reviewed is not None:
            older = as_written_in(str(serialized_data), reviewed)
            return older == snapshot_data and not (self.updating and older != serialized_data)
        return bool(serialized_data == snapshot_data)

    def diff_lines(
        self, serialized_data: SerializedData, snapshot_data: SerializedData
    ) -> Iterator[str]:
        yield from semantic_lines(str(snapshot_data), str(serialized_data))
        yield from super().diff_lines(serialized_data, snapshot_data)


def _older_version(snapshot_data: Any) -> int | None:
    """The format of a reviewed text written before the latest one (1 or 2), else None."""
    if not isinstance(snapshot_data, str):
        return None
    return next((v for v in (1, 2) if snapshot_data.startswith(f"{HEADER}{v}\n")), None)


def _parameters(test_location: PyTestLocation) -> dict[str, int] | None:
    callspec = getattr(test_location.item, "callspec", None)
    return dict(callspec.indices) if callspec is not None else None


class _Renamed:
    """A test location whose ``snapshot_name`` is the redacted one; the rest is the test's."""

    def __init__(self, location: PyTestLocation, snapshot_name: str) -> None:
        self._location = location
        self.snapshot_name = snapshot_name

    def __getattr__(self, name: str) -> Any:
        return getattr(self._location, name)


def semantic_lines(old: str, new: str) -> Iterator[str]:
    """The semantic diff as report lines (what is wrong when a side cannot be parsed)."""
    try:
        changes = diff(old, new).changes
    except SnapshotFormatError as error:
        yield _unreadable(error)
        return
    if changes:
        yield "hookproof semantic diff (class, subject: what):"
        yield from (f"  {change.describe()}" for change in changes)
        yield "text diff (- snapshot, + received):"


def failure_sections(assertion: Any, *, pending: bool) -> list[tuple[str, str]]:
    """For a test's failed comparisons, the report sections a failure shows in full (pytest
    cuts an assertion's explanation at a few lines): the semantic diff, most severe first,
    and where the proposed snapshot went when ``pending`` (which writes it). With ``pending``,
    a comparison that passed removes its stale pending file."""
    sections = []
    root = _root(getattr(getattr(assertion, "extension", None), "root", None))
    for result in _results(assertion):
        location = Path(result.snapshot_location)
        if result.success:
            if pending:
                remove_file(_pending_path(location), root=root)
            continue
        if not isinstance(result.asserted_data, str):
            continue
        lines = _failure_lines(result.recalled_data, result.asserted_data)
        if pending:
            written = write_pending(location, result.asserted_data, root=root)
            lines += [
                f"hookproof: the received snapshot was written to {written} (pending).",
                f"Review it with `hookproof review {location.parent}`: accept, reject or skip.",
            ]
        sections.append((f"hookproof snapshot {location.name}", "\n".join(lines)))
    return sections


def _results(assertion: Any) -> list[Any]:
    results = getattr(assertion, "executions", None) or {}
    return [results[index] for index in sorted(results)]


def _failure_lines(old: object, new: str) -> list[str]:
    """Each change, most severe first, with the lines of what it changed."""
    if not isinstance(old, str):
        return ["new snapshot: no reviewed file yet"]
    try:
        before, after = parse(old), parse(new)
    except SnapshotFormatError as error:
        return [_unreadable(error)]
    # The texts say what the views cannot: how a same request is written (rarely needed).
    changes = diff(before, after).changes or diff(old, new).changes
    lines = ["hookproof semantic diff (class, subject: what), most severe first:"]
    for finding in group_findings([("", changes, sections_for(changes, before, after))]):
        lines += [f"  {change.describe()}" for change in finding.changes]
        lines += [f"      {line}" for line in diff_lines(finding, _FAILURE_DIFF_LINES)]
    return lines


_FAILURE_DIFF_LINES = 40


def _unreadable(error: SnapshotFormatError) -> str:
    return (
        f"hookproof: the reviewed snapshot cannot be read: {error.problem}. Regenerate it "
        "with `pytest --snapshot-update` and review the new file in your diff."
    )


def _pending_path(location: Path) -> Path:
    return location.with_name(location.name + PENDING_SUFFIX)


def write_pending(location: Path, text: str, *, root: Path | None = None) -> Path:
    """Write ``text`` atomically as the pending snapshot of ``location`` (inside ``root``
    when given); its path."""
    path = _pending_path(location)
    write_text(path, text, root=root)
    return path


def _root(root: str | None) -> Path | None:
    return None if root is None else Path(root)


def _owning_module(location: Path, base: Path, rootdir: Path) -> Path | None:
    """``<base>/<dir>/<module>/<test>.txt`` belongs to ``<rootdir>/<dir>/<module>.py``."""
    try:
        relative = location.relative_to(base)
    except ValueError:
        return None
    if len(relative.parts) < 2:
        return None
    return (rootdir / relative.parent.parent / f"{relative.parent.name}.py").resolve()


def _did_not_run(module: Path | None, collected: frozenset[Path]) -> bool:
    """A test module that exists but was not collected completely: its tests did not run."""
    return module is not None and module not in collected and module.is_file()


@cache
def extension_for(
    matchers: tuple[Matcher, ...] | None,
    normalise_ids: bool,
    snapshot_dir: str | None,
    updating: bool = False,
    root: str | None = None,
) -> type[HookproofSnapshotExtension]:
    """The extension class for these options (one class per distinct set, reused);
    ``root``: every snapshot read or written stays inside it."""
    if (matchers, normalise_ids, snapshot_dir, updating, root) == (None, True, None, False, None):
        return HookproofSnapshotExtension
    namespace = {
        "matchers": DEFAULT_MATCHERS if matchers is None else matchers,
        "normalise_ids": normalise_ids,
        "snapshot_dir": snapshot_dir,
        "updating": updating,
        "root": root,
    }
    return type("HookproofSnapshotExtension", (HookproofSnapshotExtension,), namespace)


def _format_problem(recalled: object) -> str:
    """Why the reviewed text was refused (syrupy keeps the text, not the reason)."""
    try:
        check_version(str(recalled or ""), "the reviewed snapshot")
    except SnapshotFormatError as error:
        return error.problem
    return "it is not in this hookproof's snapshot format"


def tainted_message(assertion: Any) -> list[str] | None:
    """hookproof's explanation when the last comparison met a file in another format."""
    results = getattr(assertion, "executions", None) or {}
    if not results:
        return None
    result = results[max(results)]
    if not isinstance(result.exception, TaintedSnapshotError):
        return None
    problem = _format_problem(result.recalled_data)
    return [
        f"hookproof: snapshot {result.snapshot_location} cannot be compared: {problem}.",
        "Regenerate it with `pytest --snapshot-update` and review the new file in your diff.",
    ]
