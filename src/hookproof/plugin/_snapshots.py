"""The plugin's side of snapshots: the extension a test's ``hookproof_snapshot`` uses, the
report sections of a failed comparison, and which files are snapshots, not tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from hookproof.plugin._options import HookproofOptions

__all__ = [
    "explain_comparison",
    "failure_sections",
    "is_snapshot_file",
    "note_collection",
    "snapshot_fixture",
]


def snapshot_fixture(request: pytest.FixtureRequest, options: HookproofOptions) -> Any:
    """syrupy's snapshot, writing hookproof's readable final-request files."""
    try:
        snapshot = request.getfixturevalue("snapshot")
    except pytest.FixtureLookupError:
        raise pytest.UsageError(
            "hookproof: hookproof_snapshot needs syrupy. Install it with "
            "`pip install 'hookproof[test]'` (or `pip install syrupy`)."
        ) from None
    from hookproof.snapshot.extension import extension_for
    from hookproof.snapshot.files import snapshot_root

    base = snapshot_root(request.config, options.snapshot_dir)  # refuses one outside
    matchers = options.matchers
    extension = extension_for(
        None if matchers is None else tuple(matchers),
        options.normalise_ids,
        options.snapshot_dir,
        bool(getattr(request.config.option, "update_snapshots", False)),
        str(_confining_root(request.config.rootpath, base)),
    )
    return snapshot.use_extension(extension)


def _confining_root(rootdir: Path, directory: Path) -> Path:
    """What the files under ``directory`` must stay inside: the rootdir, or the directory
    itself when the project let it be outside (hookproof_snapshot_dir_outside_rootdir)."""
    return rootdir if directory.resolve().is_relative_to(rootdir.resolve()) else directory


def failure_sections(item: pytest.Item, report: pytest.TestReport) -> None:
    """A failed comparison's semantic diff in full, written as pending when asked."""
    assertion = getattr(item, "funcargs", {}).get("hookproof_snapshot")
    if assertion is None:
        return
    from hookproof.snapshot.extension import failure_sections as sections

    pending = bool(item.config.getoption("hookproof_pending"))
    report.sections.extend(sections(assertion, pending=pending))


def explain_comparison(op: str, right: object) -> list[str] | None:
    """Why a snapshot written in another format does not compare, before syrupy's message."""
    extension = getattr(right, "extension", None)
    if op != "==" or extension is None:
        return None
    from hookproof.snapshot.extension import HookproofSnapshotExtension, tainted_message

    return tainted_message(right) if isinstance(extension, HookproofSnapshotExtension) else None


def note_collection(collector: pytest.Collector, report: pytest.CollectReport) -> None:
    """Note a test module's collection: the snapshot extension asks which ones ran."""
    if isinstance(collector, pytest.Module):
        from hookproof.snapshot.collected import record_module_collection

        record_module_collection(collector.config, collector.path, complete=report.passed)


def is_snapshot_file(path: Path) -> bool | None:
    """Snapshot files are data: a ``*.txt`` whose first bytes are the snapshot header.

    The header, not the directory, decides: the snapshot directory may hold (or be) a folder
    of the user's own doctests, and a file there without the header is no snapshot anyway.
    None, not False, for any other file: False would also overrule ``--ignore`` and other
    plugins' decisions.
    """
    from hookproof.snapshot.files import has_snapshot_header, is_snapshot_name

    if not is_snapshot_name(path):
        return None
    return True if has_snapshot_header(path) else None
