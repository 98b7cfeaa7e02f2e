"""Final-request snapshots: canonical rendering, content hash and semantic diff.

``render(final_request)`` is the readable text reviewed in pull requests; ``parse`` reads it
back; ``diff(old, new)`` classifies what changed (BREAKING, SECURITY, REVIEW, COSMETIC).
The syrupy extension behind the ``hookproof_snapshot`` fixture lives in
``hookproof.snapshot.extension`` and is imported only by the pytest plugin.
"""

from hookproof.snapshot._diff import Change, ChangeClass, SnapshotDiff, diff
from hookproof.snapshot._normalise import DEFAULT_MATCHERS, Matcher, dates, regex
from hookproof.snapshot._render import (
    FORMAT_VERSION,
    RequestView,
    SnapshotFormatError,
    ToolView,
    content_hash,
    parse,
    render,
    view,
)

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
