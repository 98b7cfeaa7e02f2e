"""The record modes, as vcrpy and pytest-recording name them."""

from __future__ import annotations

from enum import StrEnum

from hookproof.errors import UsageError, did_you_mean

__all__ = ["RecordMode", "record_mode"]


class RecordMode(StrEnum):
    """What a cassette does with a model call.

    NONE          replay only; a call without a recorded exchange is an error (the default).
    ONCE          record while the cassette file does not exist; once it does, as NONE.
    NEW_EPISODES  replay what is recorded, record the calls that are not.
    ALL           record every call again; the file holds this run's exchanges only.
    """

    NONE = "none"
    ONCE = "once"
    NEW_EPISODES = "new_episodes"
    ALL = "all"

    @classmethod
    def parse(cls, value: object, source: str = "record_mode") -> RecordMode:
        """``value`` as a RecordMode; anything else is a UsageError listing the valid ones."""
        return record_mode(value, source)

    def records(self, cassette_exists: bool) -> bool:
        """Whether a call without a recorded exchange goes to the real model."""
        return self in (RecordMode.NEW_EPISODES, RecordMode.ALL) or (
            self is RecordMode.ONCE and not cassette_exists
        )


_NAMES = [mode.value for mode in RecordMode]


def record_mode(value: object, source: str = "record_mode") -> RecordMode:
    """``value`` as a RecordMode; anything else is a UsageError listing the valid ones."""
    if isinstance(value, RecordMode):
        return value
    if isinstance(value, str) and value in _NAMES:
        return RecordMode(value)
    hint = did_you_mean(value, _NAMES) if isinstance(value, str) else ""
    raise UsageError(
        f"hookproof: {source} is {value!r}, not a record mode.{hint} hookproof cannot "
        f"tell whether to replay or to call the real model. Use one of {', '.join(_NAMES)} "
        '(e.g. record_mode="once" to record a cassette that does not exist yet).'
    )
