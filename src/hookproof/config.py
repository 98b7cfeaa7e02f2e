"""hookproof's options, and the one place their sources are merged.

Precedence, lowest to highest: built-in defaults < ini file (``[tool.pytest.ini_options]``)
< ``@pytest.mark.hookproof(...)`` markers (the closest marker wins) < command-line options.
Marker keyword arguments are exactly the fields of ``HookproofOptions``.

Example: ini ``hookproof_snapshot_dir = "snaps"``, a module marker
``hookproof(model_name="fast")`` and a test marker ``hookproof(model_name="reasoning")``
give ``snapshot_dir="snaps"`` and ``model_name="reasoning"``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hookproof.errors import UsageError, did_you_mean

__all__ = ["HookproofOptions", "resolve_options"]


@dataclass(frozen=True, kw_only=True)
class HookproofOptions:
    """Options of the pytest integration; also the kwargs of ``@pytest.mark.hookproof``."""

    script: Sequence[Any] = ()
    """Turns for the ``scripted_model`` fixture (str, call(...), lists of calls, ...)."""
    model_name: str = "scripted"
    """Name of the ``scripted_model`` fixture's model (its identity in FinalRequests)."""
    matchers: Sequence[Any] | None = None
    """Snapshot normalisation matchers; None means hookproof's defaults."""
    normalise_ids: bool = True
    """Replace message and tool-call ids by stable placeholders in snapshots."""
    snapshot_dir: str = "snapshots"
    """Where snapshot files go, relative to the pytest rootdir."""
    allow_real_models: bool = False
    """Let models that are not declared offline run in this test."""
    extra: Mapping[str, Any] = field(default_factory=dict)


_FIELDS = [item.name for item in dataclasses.fields(HookproofOptions) if item.name != "extra"]


def _check_keys(source: str, values: Mapping[str, Any]) -> None:
    for key in values:
        if key not in _FIELDS:
            raise UsageError(
                f"hookproof: {source} has unknown option {key!r}.{did_you_mean(key, _FIELDS)} "
                f"Valid options: {', '.join(_FIELDS)}."
            )


def resolve_options(
    *,
    ini: Mapping[str, Any] | None = None,
    markers: Sequence[Mapping[str, Any]] = (),
    cli: Mapping[str, Any] | None = None,
) -> HookproofOptions:
    """Merge option sources (markers listed farthest first, so the closest wins)."""
    merged: dict[str, Any] = {}
    for source, values in (
        [("the ini file", ini or {})]
        + [("@pytest.mark.hookproof", marker) for marker in markers]
        + [("the command line", cli or {})]
    ):
        _check_keys(source, values)
        merged.update({key: value for key, value in values.items() if value is not None})
    return HookproofOptions(**merged)
