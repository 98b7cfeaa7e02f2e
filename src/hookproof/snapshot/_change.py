"""A classified change between two snapshots, and the list of them a diff returns."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from hookproof.redaction import redact_text

__all__ = ["Change", "ChangeClass", "SnapshotDiff", "short"]


class ChangeClass(StrEnum):
    BREAKING = "BREAKING"
    SECURITY = "SECURITY"
    REVIEW = "REVIEW"
    COSMETIC = "COSMETIC"


@dataclass(frozen=True)
class Change:
    """One classified change: ``kind`` is BREAKING/SECURITY/REVIEW/COSMETIC."""

    kind: ChangeClass
    subject: str
    what: str
    before: str | None = None
    after: str | None = None
    origin: str | None = None  # where it comes from, when the snapshots say (provenance)

    @property
    def explained(self) -> str:
        """What changed, with its origin when known."""
        return f"{self.what} ({self.origin})" if self.origin else self.what

    def describe(self) -> str:
        return f"{self.kind.value:<8} {self.subject}: {self.explained}"

    def as_dict(self) -> dict[str, str | None]:
        return {
            "class": self.kind.value,
            "subject": self.subject,
            "what": self.what,
            "origin": self.origin,
            "before": self.before,
            "after": self.after,
        }


@dataclass(frozen=True)
class SnapshotDiff:
    """All changes between two requests, most severe first."""

    changes: tuple[Change, ...]

    @property
    def is_empty(self) -> bool:
        return not self.changes

    def of(self, *kinds: ChangeClass) -> list[Change]:
        return [change for change in self.changes if change.kind in kinds]

    @property
    def kinds(self) -> set[ChangeClass]:
        return {change.kind for change in self.changes}

    def format(self) -> str:
        return "\n".join(change.describe() for change in self.changes)


def short(value: Any) -> str:
    """A value on one line of at most 120 characters, redacted before it is cut (half a
    secret no longer looks like one)."""
    text = redact_text(value if isinstance(value, str) else json.dumps(value, sort_keys=True))
    return text if len(text) <= 120 else text[:117] + "..."
