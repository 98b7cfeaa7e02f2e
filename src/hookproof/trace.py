"""The trace: the ordered record of everything a run did, which contracts read.

Each hook and wrap layer records an ``enter`` and an ``exit`` (or ``error``) event with the
middleware's name; each model call and tool call records its own pair; each state update
records the keys it wrote. Events carry no clock and no random value, so two runs of the same
script produce equal traces.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from hookproof._secrets.installed import redact_installed as redact_text
from hookproof._secrets.reprs import redacted_repr

__all__ = ["EventKind", "Phase", "Trace", "TraceEvent"]

EventKind: TypeAlias = Literal["agent", "hook", "layer", "model", "tool", "state", "event"]
Phase: TypeAlias = Literal["enter", "exit", "error", "update"]


@redacted_repr
@dataclass(frozen=True, slots=True)
class TraceEvent:
    """One step of a run.

    ``kind`` is agent, hook (node hook), layer (wrap hook), model, tool, state or event (a
    dialect's emitted event, e.g. an Eino AgentEvent);
    ``hook`` names the hook (before_model, wrap_tool_call, ...) or the call (model, tool);
    ``middleware`` is the middleware's name (None for the runtime's own steps);
    ``depth`` is how many wrap layers and calls were open when it was recorded.
    """

    seq: int
    kind: EventKind
    hook: str
    phase: Phase
    middleware: str | None = None
    depth: int = 0
    data: Mapping[str, Any] = field(default_factory=dict)

    def label(self) -> str:
        owner = f"{self.middleware}." if self.middleware else ""
        return f"{owner}{self.hook}:{self.phase}"

    def describe(self) -> str:
        details = ", ".join(f"{key}={value!r}" for key, value in self.data.items())
        return f"{'  ' * self.depth}{self.label()}" + (f" ({details})" if details else "")


@redacted_repr
@dataclass(frozen=True, slots=True)
class Trace:
    """An immutable, ordered sequence of TraceEvents with helpers for assertions."""

    events: tuple[TraceEvent, ...] = ()

    def __iter__(self) -> Iterator[TraceEvent]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)

    def __getitem__(self, index: int) -> TraceEvent:
        return self.events[index]

    def labels(self, *kinds: EventKind) -> list[str]:
        """``middleware.hook:phase`` of every event (of the given kinds, if any)."""
        return [event.label() for event in self.select(*kinds)]

    def select(
        self, *kinds: EventKind, middleware: str | None = None, hook: str | None = None
    ) -> list[TraceEvent]:
        return [
            event
            for event in self.events
            if (not kinds or event.kind in kinds)
            and (middleware is None or event.middleware == middleware)
            and (hook is None or event.hook == hook)
        ]

    def hook_counts(self) -> Counter[tuple[str | None, str]]:
        """How often each (middleware, hook) was entered."""
        return Counter(
            (event.middleware, event.hook)
            for event in self.events
            if event.phase == "enter" and event.kind in ("hook", "layer")
        )

    def count(self, hook: str, middleware: str | None = None) -> int:
        return sum(
            1 for event in self.select(hook=hook, middleware=middleware) if event.phase == "enter"
        )

    @property
    def model_calls(self) -> list[TraceEvent]:
        return [event for event in self.events if event.kind == "model" and event.phase == "enter"]

    @property
    def tool_calls(self) -> list[TraceEvent]:
        return [event for event in self.events if event.kind == "tool" and event.phase == "enter"]

    def format(self) -> str:
        """One indented line per event, for people and for snapshot files."""
        return redact_text("\n".join(event.describe() for event in self.events))


class TraceRecorder:
    """Collects events for one run as plain tuples; TraceEvents are built once, at the end."""

    __slots__ = ("depth", "rows")

    def __init__(self) -> None:
        self.rows: list[tuple[Any, ...]] = []
        self.depth = 0

    def record(
        self,
        kind: EventKind,
        hook: str,
        phase: Phase,
        middleware: str | None = None,
        data: Mapping[str, Any] | None = None,
    ) -> None:
        if phase == "enter":
            self.rows.append((kind, hook, phase, middleware, self.depth, data))
            self.depth += 1
            return
        if phase != "update":
            self.depth -= 1
        self.rows.append((kind, hook, phase, middleware, self.depth, data))

    # The engine's steps know their phase: these skip ``record``'s dispatch on it.

    def enter(
        self, kind: EventKind, hook: str, middleware: str | None, data: Mapping[str, Any] | None
    ) -> None:
        self.rows.append((kind, hook, "enter", middleware, self.depth, data))
        self.depth += 1

    def exit(
        self, kind: EventKind, hook: str, middleware: str | None, data: Mapping[str, Any] | None
    ) -> None:
        self.depth = depth = self.depth - 1
        self.rows.append((kind, hook, "exit", middleware, depth, data))

    def update(
        self, kind: EventKind, hook: str, middleware: str | None, data: Mapping[str, Any] | None
    ) -> None:
        self.rows.append((kind, hook, "update", middleware, self.depth, data))

    def freeze(self) -> Trace:
        return Trace(
            tuple(
                TraceEvent(seq, kind, hook, phase, owner, depth, data if data else {})
                for seq, (kind, hook, phase, owner, depth, data) in enumerate(self.rows)
            )
        )
