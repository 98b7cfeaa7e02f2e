"""Final-request snapshots: canonical rendering, content hash and semantic diff.

``render(final_request)`` is the readable text reviewed in pull requests; ``parse`` reads it
back; ``diff(old, new)`` classifies what changed (BREAKING, SECURITY, REVIEW, COSMETIC).
The syrupy extension behind the ``hookproof_snapshot`` fixture lives in
``hookproof.snapshot.extension`` and is imported only by the pytest plugin.

Two modules serve the plugin and the gate: ``hookproof.snapshot.files`` (where snapshot files
live, how to recognise one; standard library only) and ``hookproof.snapshot.collected`` (the
test modules a session collected). ``hookproof.snapshot.findings`` turns a change into the
lines of the section it touched, for every report. The names below load on first use
(``hookproof._support.lazy``), so the plugin importing ``hookproof.snapshot.files`` while pytest
collects costs no more than that module.
"""

from __future__ import annotations

from hookproof._support import lazy as _lazy

TYPE_CHECKING = False  # typing itself costs an import several ms; mypy sees True
if TYPE_CHECKING:
    from hookproof.errors import SnapshotFormatError
    from hookproof.snapshot._diff import Change, ChangeClass, SnapshotDiff, diff
    from hookproof.snapshot._normalise import DEFAULT_MATCHERS, Matcher, dates, regex
    from hookproof.snapshot._parse import parse
    from hookproof.snapshot._render import content_hash, render
    from hookproof.snapshot._request_view import FORMAT_VERSION, RequestView, ToolView
    from hookproof.snapshot._view import view

__all__ = [
    "DEFAULT_MATCHERS",
    "FORMAT_VERSION",
    "Change",
    "ChangeClass",
    "Matcher",
    "RequestView",
    "SnapshotDiff",
    "SnapshotFormatError",
    "ToolView",
    "content_hash",
    "dates",
    "diff",
    "parse",
    "regex",
    "render",
    "view",
]

_ORIGINS = _lazy.origins(
    {
        "hookproof.snapshot._diff": ("Change", "ChangeClass", "SnapshotDiff", "diff"),
        "hookproof.snapshot._normalise": ("DEFAULT_MATCHERS", "Matcher", "dates", "regex"),
        "hookproof.errors": ("SnapshotFormatError",),
        "hookproof.snapshot._parse": ("parse",),
        "hookproof.snapshot._render": ("content_hash", "render"),
        "hookproof.snapshot._request_view": ("FORMAT_VERSION", "RequestView", "ToolView"),
        "hookproof.snapshot._view": ("view",),
    },
)

if not TYPE_CHECKING:  # mypy reads the imports above
    __getattr__, __dir__ = _lazy.exports(globals(), _ORIGINS)
