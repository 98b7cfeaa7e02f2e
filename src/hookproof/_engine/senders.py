"""Which agent a run belongs to, for the FinalRequests it records.

A run notes its agent as the one running while it runs; a run started meanwhile (a subagent
a tool invokes, the harness's ``task``) is one level deeper. A context variable carries it,
so threads the engine hands work to and async tasks see the run they belong to.
"""

from __future__ import annotations

from hookproof.requests import RUNNING_AGENT as RUNNING
from hookproof.requests import Sender

__all__ = ["RUNNING", "sender_of_new_run"]


# The main agent's sender of the last run, reused while the same agent runs (a Sender is
# immutable and compares by value).
_last_main = Sender(None, 0)


def sender_of_new_run(name: str | None) -> Sender:
    """The sender of a run of agent ``name`` starting now: the main agent unless another
    run is under way in this context, whose subagent it then is."""
    global _last_main
    outer = RUNNING.get()
    if outer is not None:
        return Sender(name, outer.depth + 1)
    main = _last_main
    if main.name != name:
        main = _last_main = Sender(name, 0)
    return main
