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

import os
import tempfile
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from syrupy.data import SnapshotCollections
from syrupy.exceptions import TaintedSnapshotError
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from hookproof._collected_modules import collected_modules
from hookproof._gate_sections import diff_lines, group_findings, sections_for
from hookproof._snapshot_files import HEADER, snapshot_root
from hookproof.errors import UsageError
from hookproof.snapshot._diff import diff
from hookproof.snapshot._normalise import DEFAULT_MATCHERS, Matcher
from hookproof.snapshot._render import (
    RequestView,
    SnapshotFormatError,
    check_version,
    parse,
    render,
    without_provenance,
)
from hookproof.vocabulary import FinalRequest

if TYPE_CHECKING:
    from syrupy.data import SnapshotCollection
    from syrupy.location import PyTestLocation
    from syrupy.types import PropertyFilter, PropertyMatcher, SerializableData, SerializedData

__all__ = ["PENDING_SUFFIX", "HookproofSnapshotExtension", "extension_for", "failure_sections"]

PENDING_SUFFIX = ".pending"


class HookproofSnapshotExtension(SingleFileSnapshotExtension):
    """Final requests as hookproof's canonical text, one ``.txt`` file per assertion."""

    _write_mode = WriteMode.TEXT
    file_extension = "txt"
    matchers: Sequence[Matcher] = DEFAULT_MATCHERS
    normalise_ids: bool = True
    snapshot_dir: str | None = None
    updating: bool = False  # under --snapshot-update, a format-1 file gains its provenance

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
        data = super().read_snapshot_data_from_location(
            snapshot_location=snapshot_location,
            snapshot_name=snapshot_name,
            session_id=session_id,
        )
        if isinstance(data, str):
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
        _write_atomically(Path(snapshot_collection.location), data)

    def matches(self, *, serialized_data: Any, snapshot_data: Any) -> bool:
        """Equal text; a snapshot reviewed before provenance was recorded (format 1) is
        compared with what the model received, the new provenance aside (and rewritten
        with it under --snapshot-update)."""
        if isinstance(snapshot_data, str) and snapshot_data.startswith(f"{HEADER}1\n"):
            plain = without_provenance(str(serialized_data))
            return plain == snapshot_data and not (self.updating and plain != serialized_data)
        return bool(serialized_data == snapshot_data)

    def diff_lines(
        self, serialized_data: SerializedData, snapshot_data: SerializedData
    ) -> Iterator[str]:
        yield from semantic_lines(str(snapshot_data), str(serialized_data))
        yield from super().diff_lines(serialized_data, snapshot_data)


def semantic_lines(old: str, new: str) -> Iterator[str]:
    """The semantic diff as report lines (nothing when a side cannot be parsed)."""
    try:
        changes = diff(old, new).changes
    except SnapshotFormatError as error:
        yield f"hookproof: no semantic diff, the reviewed file cannot be read: {error.problem}."
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
    for result in _results(assertion):
        location = Path(result.snapshot_location)
        if result.success:
            if pending:
                _pending_path(location).unlink(missing_ok=True)
            continue
        if not isinstance(result.asserted_data, str):
            continue
        lines = _failure_lines(result.recalled_data, result.asserted_data)
        if pending:
            written = write_pending(location, result.asserted_data)
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
        return [
            f"no semantic diff: the reviewed file is not a snapshot in this format: "
            f"{error.problem}. Regenerate it with `pytest --snapshot-update` and review it."
        ]
    changes = diff(before, after).changes
    if not changes:
        return ["no semantic diff: only text the diff ignores changed (see the text diff)"]
    lines = ["hookproof semantic diff (class, subject: what), most severe first:"]
    for finding in group_findings([("", changes, sections_for(changes, before, after))]):
        lines += [f"  {change.describe()}" for change in finding.changes]
        lines += [f"      {line}" for line in diff_lines(finding, _FAILURE_DIFF_LINES)]
    return lines


_FAILURE_DIFF_LINES = 40


def _pending_path(location: Path) -> Path:
    return location.with_name(location.name + PENDING_SUFFIX)


def write_pending(location: Path, text: str) -> Path:
    """Write ``text`` atomically as the pending snapshot of ``location``; its path."""
    path = _pending_path(location)
    _write_atomically(path, text)
    return path


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


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


@cache
def extension_for(
    matchers: tuple[Matcher, ...] | None,
    normalise_ids: bool,
    snapshot_dir: str | None,
    updating: bool = False,
) -> type[HookproofSnapshotExtension]:
    """The extension class for these options (one class per distinct set, reused)."""
    if matchers is None and normalise_ids and snapshot_dir is None and not updating:
        return HookproofSnapshotExtension
    namespace = {
        "matchers": DEFAULT_MATCHERS if matchers is None else matchers,
        "normalise_ids": normalise_ids,
        "snapshot_dir": snapshot_dir,
        "updating": updating,
    }
    return type("HookproofSnapshotExtension", (HookproofSnapshotExtension,), namespace)


def tainted_message(assertion: Any) -> list[str] | None:
    """hookproof's explanation when the last comparison met a file in another format."""
    results = getattr(assertion, "executions", None) or {}
    if not results:
        return None
    result = results[max(results)]
    if not isinstance(result.exception, TaintedSnapshotError):
        return None
    return [
        f"hookproof: snapshot {result.snapshot_location} was not written in this hookproof's "
        "snapshot format, so it cannot be compared.",
        "Regenerate it with `pytest --snapshot-update` and review the new file in your diff.",
    ]
