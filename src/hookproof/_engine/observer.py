"""What the engine tells the observer of a run as it happens.

The chain links and the loop only report; the observer keeps what it needs. The agents
install one that records provenance (``hookproof.provenance.ProvenanceNotes``): it notes
which model layer changed the request on its way in, and gives each FinalRequest the
provenance read from those notes. An engine built without one records no provenance.
"""

from __future__ import annotations

from typing import Any, Protocol

from hookproof.requests import ModelRequest

__all__ = ["RunObserver", "Unobserved"]


class RunObserver(Protocol):
    """One run's observer (a new one per run: runs of one agent may overlap)."""

    def request_passed(self, owner: str, received: Any, passed: Any) -> None:
        """Model layer ``owner`` handed its inner handler ``passed`` in place of ``received``;
        the change lasts until the matching ``request_returned``."""

    def request_returned(self) -> None:
        """The inner call of the latest ``request_passed`` returned or failed."""

    def model_called(self, call: Any, request: ModelRequest) -> Any:
        """The innermost model is about to receive ``request`` (built from the layers' value
        ``call``); returns the FinalRequest's provenance (None: none recorded)."""


class Unobserved:
    """The observer of a run nobody observes."""

    __slots__ = ()

    def request_passed(self, owner: str, received: Any, passed: Any) -> None:
        return None

    def request_returned(self) -> None:
        return None

    def model_called(self, call: Any, request: ModelRequest) -> Any:
        return None
