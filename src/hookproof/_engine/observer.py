"""What the engine tells the observer of a run as it happens.

The chain links and the loop only report; the observer keeps what it needs. The agents
install one that records provenance (``hookproof.provenance.ProvenanceNotes``): it notes
which model layer changed the request on its way in, and gives each FinalRequest the
provenance read from those notes. An engine built without one records no provenance.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from hookproof.requests import ModelRequest

__all__ = ["STEP", "RunObserver", "StepListener", "Suspended", "Unlistened", "Unobserved"]


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


STEP = "hookproof-step-finished"
"""What the coroutine of a synchronous run yields when its listener asked to suspend at the
end of a step (``drive`` refuses it; only a driver that listens resumes such a run)."""


class StepListener(Protocol):
    """Hears one run's steps as they happen (a new one per run)."""

    def run_started(self, state: Callable[[], Mapping[str, Any]]) -> None:
        """The run begins; ``state()`` reads its state at any later event."""

    def step_started(self, step: str) -> None:
        """Step ``step`` begins: ``"<owner>.<hook>"`` for a node hook, ``"model"``, or
        ``"tools"`` for the tool turn."""

    def tool_started(self, call: Any) -> None:
        """One tool call of the current tool turn begins (``call`` is the ToolCall)."""

    def tool_finished(self, call: Any, result: Any) -> None:
        """That call returned ``result`` (a ToolMessage or a Command), not yet applied."""

    def state_updated(self, update: Mapping[str, Any], source: str) -> None:
        """``update`` was applied to the state (``source``: ``"input"``, a hook's name,
        ``"model"``, ``"tool"``...)."""

    def step_finished(self, step: str) -> bool:
        """Step ``step`` ended without error; True suspends a synchronous run here."""


class Unlistened:
    """The listener of a run nobody streams."""

    __slots__ = ()

    def run_started(self, state: Callable[[], Mapping[str, Any]]) -> None:
        return None

    def step_started(self, step: str) -> None:
        return None

    def tool_started(self, call: Any) -> None:
        return None

    def tool_finished(self, call: Any, result: Any) -> None:
        return None

    def state_updated(self, update: Mapping[str, Any], source: str) -> None:
        return None

    def step_finished(self, step: str) -> bool:
        return False


UNLISTENED = Unlistened()


class Suspended:
    """Suspends a synchronous run at a step's end; its listening driver resumes it."""

    __slots__ = ()

    def __await__(self) -> Any:
        yield STEP
