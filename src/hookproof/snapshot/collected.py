"""The test modules pytest collected completely in this session, recorded by the plugin.

The snapshot extension asks for them to tell a snapshot whose test no longer asserts it (its
module was collected and ran: the snapshot is unused) from one whose module never got as far
as its tests (skipped at import by ``pytest.importorskip``, failed to import, or not collected
at all: the module still owns the snapshot).
"""

from __future__ import annotations

from pathlib import Path

import pytest

__all__ = ["collected_modules", "record_module_collection"]

_COLLECTED = pytest.StashKey[set[Path]]()


def record_module_collection(config: pytest.Config, path: Path, *, complete: bool) -> None:
    """Note that pytest collected the module at ``path``; ``complete``: it yielded its tests."""
    recorded = config.stash.setdefault(_COLLECTED, set())
    if complete:
        recorded.add(path.resolve())


def collected_modules(config: pytest.Config) -> frozenset[Path] | None:
    """The completely collected modules; None when the plugin saw no collection (disabled)."""
    recorded = config.stash.get(_COLLECTED, None)
    return None if recorded is None else frozenset(recorded)
