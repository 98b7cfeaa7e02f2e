"""What a ctx bound to a run points at: the live run, its events and its phase."""

from __future__ import annotations

from hookproof._engine import RunHandle
from hookproof._support.frozen import FrozenDict
from hookproof.eino._records import AgentEvent

__all__ = ["RUN_LOCAL_KEY", "RunExec"]

# Run-local values live in the engine's state under this one private key (see _runlocal).
RUN_LOCAL_KEY = "_eino_run_local"


class RunExec:
    """One run's execution context: its RunHandle once the run starts, the events sent so
    far, and where the run is (state ready, finished, a model attempt held)."""

    def __init__(self, agent_name: str) -> None:
        self.agent_name = agent_name
        self.handle: RunHandle | None = None
        self.events: list[AgentEvent] = []
        self.state_ready = False  # false during before_agent: Eino's graph state is not there
        self.finished = False
        self.hold_depth = 0  # > 0 while a retry or failover decides on a model attempt
        self.held_event: AgentEvent | None = None

    def bind(self, handle: RunHandle) -> None:
        self.handle = handle

    def finish(self) -> None:
        """The run is over: nothing sends events any more, and its handle is let go (the
        handle's runtime holds this run's data, which holds this: a cycle that would leave
        every run to the garbage collector)."""
        self.finished = True
        self.handle = None

    def emit(self, event: AgentEvent, owner: str | None = None, kind: str | None = None) -> None:
        """Send ``event`` (``kind``: its kind, when the sender knows it already)."""
        if not event.agent_name:
            event = event.override(agent_name=self.agent_name)
        self.events.append(event)
        if self.handle is not None:
            data: dict[str, str] = {"kind": kind or event.kind}
            if event.tool_name:
                data["tool"] = event.tool_name
            self.handle.record("agent_event", owner, data)

    def run_local(self) -> FrozenDict:
        assert self.handle is not None
        return self.handle.state.get(RUN_LOCAL_KEY, FrozenDict())  # type: ignore[no-any-return]

    def write_run_local(self, values: dict[str, str], source: str) -> None:
        assert self.handle is not None
        self.handle.update({RUN_LOCAL_KEY: values}, source=source)
