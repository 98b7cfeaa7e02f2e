"""What a model behind a cassette asks of it: a call's slot (the exchange it replays, or none
when it is to be recorded), and the answer replayed or recorded, encoded as JSON data.

``Cassette`` is a ``Player``; the model wrappers are written against ``Player``, so they need
not import the cassette that wraps them."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from hookproof.recording._format import Exchange
from hookproof.requests import FinalRequest

__all__ = ["Decode", "Encode", "Player", "Slot"]

T = TypeVar("T")
Encode = Callable[[Any], Mapping[str, Any]]
Decode = Callable[[Mapping[str, Any]], Any]


@dataclass(frozen=True)
class Slot:
    """One call's place: its number (from 1), its request as recorded text, and the
    exchange it replays (None when it is to be recorded)."""

    number: int
    request: str
    exchange: Exchange | None


class Player(ABC):
    """Replays or records one model call at a time: ``lookup`` gives the call its slot,
    ``decode_answer`` replays what the slot holds, ``record`` keeps a live answer."""

    path: Path

    @abstractmethod
    def lookup(self, request: FinalRequest, kind: str) -> Slot:
        """The slot of the next call, with ``request``."""

    @abstractmethod
    def record(self, slot: Slot, kind: str, answer: Mapping[str, Any]) -> None:
        """Keep ``answer`` (JSON data) as the exchange of ``slot``."""

    @abstractmethod
    def decode_answer(self, slot: Slot, decode: Decode) -> Any:
        """The answer ``slot`` replays, as ``decode`` turns it into the model's."""

    def play_or_record(
        self,
        request: FinalRequest,
        kind: str,
        call: Callable[[], T],
        encode: Encode,
        decode: Decode,
    ) -> T:
        """The recorded answer to ``request``, decoded; or ``call()``'s, recorded."""
        slot = self.lookup(request, kind)
        if slot.exchange is None:
            return self._record_live(slot, kind, call(), encode)
        answer: T = self.decode_answer(slot, decode)
        return answer

    async def aplay_or_record(
        self,
        request: FinalRequest,
        kind: str,
        call: Callable[[], Awaitable[T]],
        encode: Encode,
        decode: Decode,
    ) -> T:
        """``play_or_record`` for an async ``call``."""
        slot = self.lookup(request, kind)
        if slot.exchange is None:
            return self._record_live(slot, kind, await call(), encode)
        answer: T = self.decode_answer(slot, decode)
        return answer

    def _record_live(self, slot: Slot, kind: str, live: T, encode: Encode) -> T:
        self.record(slot, kind, encode(live))
        return live
