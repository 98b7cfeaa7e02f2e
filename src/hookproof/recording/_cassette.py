"""Cassette: one test's recorded exchanges, replayed in order, recorded as the mode allows."""

from __future__ import annotations

import difflib
import json
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from hookproof.errors import (
    CassetteError,
    CassetteFormatError,
    MissingExchangeError,
    StaleCassetteError,
)
from hookproof.recording._format import Exchange, dumps, read, write
from hookproof.recording._modes import RecordMode, record_mode
from hookproof.recording._player import Decode, Player, Slot
from hookproof.recording._wrap import wrap
from hookproof.requests import FinalRequest
from hookproof.snapshot import DEFAULT_MATCHERS, Matcher, SnapshotDiff, diff, render

__all__ = ["Cassette"]


class Cassette(Player):
    """The recorded exchanges of one test, in the file at ``path``.

    Calls are matched by their request (rendered as a snapshot, after ``matchers``, then
    redacted) and their order: each call replays the first recorded exchange with an equal
    request that has not been played yet. ``wrap(model)`` puts a model behind the cassette.
    Exchanges recorded in this run are written by ``save()`` (or on leaving a ``with``
    block without an error); nothing is written when nothing was recorded. Thread-safe.
    """

    __test__ = False

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        record_mode: str | RecordMode = RecordMode.NONE,
        test: str | None = None,
        matchers: Sequence[Matcher] | None = None,
        normalise_ids: bool = True,
        root: str | os.PathLike[str] | None = None,
    ) -> None:
        """``test`` names the test (a pytest node id) in the file and in error messages;
        ``root`` (the pytest fixture gives the rootdir) is a directory the file must stay
        inside, every level of its path and links included."""
        self.path = Path(path)
        self.root = None if root is None else Path(root)
        self.record_mode = _mode(record_mode)
        self.test = test
        self._matchers = tuple(DEFAULT_MATCHERS if matchers is None else matchers)
        self._normalise_ids = normalise_ids
        # A link to nothing is "there" (writing would replace the link), not missing.
        self._existed = self.path.exists() or self.path.is_symlink()
        replays = self._existed and self.record_mode is not RecordMode.ALL
        self._recorded: list[Exchange] = read(self.path, root=self.root) if replays else []
        self._played: set[int] = set()
        self._new: list[Exchange] = []
        self._calls = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"Cassette({str(self.path)!r}, record_mode={self.record_mode.value!r}, "
            f"recorded={len(self._recorded)}, new={len(self._new)})"
        )

    def __enter__(self) -> Cassette:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if error is None:
            self.save()

    @property
    def records(self) -> bool:
        """Whether calls without a recorded exchange go to the real model (and are recorded)."""
        return self.record_mode.records(self._existed)

    @property
    def exchanges(self) -> tuple[Exchange, ...]:
        """What ``save()`` would write: the recorded exchanges kept, then this run's."""
        with self._lock:
            return tuple(self._kept() + self._new)

    @property
    def all_played(self) -> bool:
        """Whether every exchange loaded from the file was replayed."""
        with self._lock:
            return len(self._played) == len(self._recorded)

    def wrap(self, model: Any) -> Any:
        """``model`` behind this cassette: a LangChain chat model, a hookproof ChatModel
        (``invoke(FinalRequest)``) or an Eino-style model (``generate`` / ``stream``)."""
        return wrap(self, model)

    def save(self) -> bool:
        """Write the file if this run recorded anything (atomically); True if it did."""
        with self._lock:
            if not self._new:
                return False
            exchanges = self._kept() + self._new
            write(self.path, dumps(exchanges, test=self.test), root=self.root)
            self._recorded, self._new = exchanges, []
            self._played = set(range(len(exchanges)))
            self._existed = True
        return True

    def _kept(self) -> list[Exchange]:
        return [] if self.record_mode is RecordMode.ALL else list(self._recorded)

    # -- as a Player: what the models behind the cassette call -----------------------------

    def decode_answer(self, slot: Slot, decode: Decode) -> Any:
        """The answer ``slot`` replays, as ``decode`` turns it into the model's; an answer
        edited into another shape (a key renamed, a str turned into a number) is a
        CassetteFormatError."""
        assert slot.exchange is not None
        try:
            return decode(slot.exchange.answer)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as error:
            lines = [line.strip() for line in str(error).splitlines()[:2]]
            problem = f"{type(error).__name__}: {'; '.join(lines)}"
            raise CassetteFormatError(
                f"hookproof: the answer recorded for {self._where(slot.number)} in the "
                f"cassette {self.path} is not a {slot.exchange.kind} model's answer "
                f"({problem[:200]}). Replaying it would hand the agent something no model "
                "returned. Record the cassette again with record mode all, or restore it "
                "from version control."
            ) from None

    def lookup(self, request: FinalRequest, kind: str) -> Slot:
        """The slot of the next call, with ``request``: the exchange to replay, or none if
        the call is to be recorded; a MissingExchangeError if it may not be."""
        __tracebackhide__ = True
        text = self.request_text(request)
        with self._lock:
            self._calls += 1
            number = self._calls
            index = self._first_unplayed(text)
            if index is not None:
                self._played.add(index)
                return Slot(number, text, self._checked_kind(index, kind))
            if not self.records:
                raise self._miss(number, text)
        return Slot(number, text, None)

    def record(self, slot: Slot, kind: str, answer: Mapping[str, Any]) -> None:
        """Keep ``answer`` (JSON data) as the exchange of ``slot``, for ``save()``."""
        _check_json(answer, f"{self._where(slot.number)}'s answer")
        with self._lock:
            self._new.append(Exchange(slot.request, kind, answer))

    def request_text(self, request: FinalRequest) -> str:
        """What a call is matched on: the snapshot text of ``request``, redacted."""
        from hookproof.redaction import redact_text

        rendered = render(
            request,
            matchers=self._matchers,
            normalise_ids=self._normalise_ids,
            provenance=False,  # what the model received; how it came to be is not matched
        )
        return redact_text(rendered)

    def _first_unplayed(self, text: str) -> int | None:
        if self.record_mode is RecordMode.ALL:
            return None
        return next(
            (
                index
                for index, item in enumerate(self._recorded)
                if index not in self._played and item.request == text
            ),
            None,
        )

    def _checked_kind(self, index: int, kind: str) -> Exchange:
        exchange = self._recorded[index]
        if exchange.kind != kind:
            raise CassetteFormatError(
                f"hookproof: exchange {index} of the cassette {self.path} was answered by a "
                f"{exchange.kind} model, and is now replayed to a {kind} model; its answer is "
                f"in the {exchange.kind} form, which a {kind} model cannot give back. Wrap the "
                "kind of model the cassette was recorded with, or record it again with record "
                "mode all."
            )
        return exchange

    # -- errors ----------------------------------------------------------------------------

    def _miss(self, number: int, text: str) -> MissingExchangeError:
        candidate = self._candidate(number - 1)
        if candidate is None:
            return MissingExchangeError(self._missing_message(number))
        changes = diff(self._recorded[candidate].request, text)
        return StaleCassetteError(
            self._stale_message(number, candidate, text, changes), diff=changes
        )

    def _candidate(self, position: int) -> int | None:
        """The recorded exchange a call that matches none was most likely recorded as: the
        one at its place if unplayed, else the first unplayed one."""
        if position < len(self._recorded) and position not in self._played:
            return position
        return next((i for i in range(len(self._recorded)) if i not in self._played), None)

    def _where(self, number: int) -> str:
        test = f" of {self.test}" if self.test else ""
        return f"model call {number}{test}"

    def _missing_message(self, number: int) -> str:
        if not self._existed:
            found = "does not exist"
        else:
            found = f"holds {len(self._recorded)} exchange(s), all replayed by earlier calls"
        return (
            f"hookproof: {self._where(number)} has no recorded exchange: the cassette "
            f"{self.path} {found}. In record mode {self.record_mode.value}"
            f"{self._mode_note()}, hookproof replays recorded answers and never calls the real "
            f"model, so there is no answer to give. "
            f"{self._how_to_record('new_episodes' if self._existed else 'once')}"
        )

    def _mode_note(self) -> str:
        if self.record_mode is RecordMode.ONCE:
            return " (the cassette exists, so once records nothing more)"
        return ""

    def _stale_message(self, number: int, candidate: int, text: str, changes: SnapshotDiff) -> str:
        recorded = self._recorded[candidate].request
        classes = ", ".join(sorted(kind.value for kind in changes.kinds)) or "no classified change"
        return (
            f"hookproof: {self._where(number)} does not match the exchange recorded for it "
            f"(exchange {candidate} of the cassette {self.path}): the request changed since it "
            f"was recorded ({classes}). Replaying an answer recorded for another request would "
            "test a conversation the model never had.\n\nWhat changed:\n"
            f"{changes.format() or '(only lines the semantic diff does not classify)'}\n\n"
            f"{_unified(recorded, text)}\n\nIf the change is intended, "
            f"{self._how_to_record('all', lowercase=True)} If not, the request's change is "
            "the bug to fix."
        )

    def _how_to_record(self, mode: str, *, lowercase: bool = False) -> str:
        verb = "record" if lowercase else "Record"
        if self.test is None:
            return f'{verb} it with Cassette({str(self.path)!r}, record_mode="{mode}").'
        return (
            f"{verb} it with `pytest --hookproof-record-mode={mode} '{self.test}'` or mark the "
            f'test @pytest.mark.hookproof(record_mode="{mode}") for one run.'
        )


def _check_json(answer: Mapping[str, Any], what: str) -> None:
    """Refuse an answer the file cannot hold now, not when the test is over."""
    try:
        json.dumps(answer, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise CassetteError(
            f"hookproof: {what} cannot be written to a cassette: {error}. A cassette holds "
            "JSON, so it could not be replayed. Make the model's answer (its metadata, "
            "generation info) hold only JSON values."
        ) from None


def _mode(value: object) -> RecordMode:
    return record_mode(value, "Cassette(record_mode=...)")


_DIFF_LINES = 40


def _unified(recorded: str, live: str) -> str:
    lines = list(
        difflib.unified_diff(
            recorded.splitlines(), live.splitlines(), "recorded", "now", n=1, lineterm=""
        )
    )
    more = len(lines) - _DIFF_LINES
    shown = lines[:_DIFF_LINES] + ([f"... ({more} more lines)"] if more > 0 else [])
    return "\n".join(shown)
