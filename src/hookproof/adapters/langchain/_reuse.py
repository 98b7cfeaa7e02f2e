"""One build of an app for many runs, on the reference engine or on LangGraph's graph,
kept only while each run leaves the build as it was built.

A check runs the same factory dozens of times in a test, and deepagents rebuilds the agent,
its subagents and new tool objects on each build (then LangChain derives every tool's schema
again on each model call). A ``ReusedBuild`` builds once with recording models whose script
is replaced before each run, and prints the state the build holds (every object reachable
from the agent: middleware, tools, closures; see ``hookproof._support.object_state``) right
after building. After each run it prints it again: the same print means the next run starts
from a build that holds exactly what a fresh one holds; any difference (a middleware that
keeps a counter or a cached role on ``self``, a closure's list) drops the build, and every
later run builds anew, as before. Only memos that are pure functions of a tool's definition
or of a LangGraph node's are left out of the print (``_PURE_MEMOS``), and what the restart
of the build's own recording models resets before each run (``_RESTARTED``; a scripted model
the factory makes for itself is printed whole: its place in its script is state). Each run
gets a context of its own (the target's ``run``), so a context variable a run sets is gone
for the next.

A build is reused only within the test that built it (a target object kept across tests
builds anew in each: a test's fixtures may change what the factory builds).

What the print cannot see: module globals and class attributes (a fresh build shares them
too, unless the factory itself resets one while it builds) and state held inside objects the
walk compares by ``repr``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.tools import BaseTool

from hookproof._exercised import current_test_memo
from hookproof._support.object_state import first_difference, state_print
from hookproof.adapters.langchain.models import RecordingChatModel

__all__ = ["ReusedBuild"]

_PREGEL_NODE = "langgraph.pregel._read.PregelNode"
# attribute -> the owners whose attribute of that name is a memo a run may fill: classes, or
# the start of the owner's class's qualified name
_PURE_MEMOS: dict[str, tuple[type, ...] | str] = {
    "_tool_call_schema_memo": (BaseTool,),  # the tool's schema for the model
    "_injected_args_keys": (BaseTool,),  # the arguments its signature marks injected
    "_tool_names": "hookproof._engine.",  # the reference engine's last tool list's names
    # LangGraph's node memos (functools.cached_property), derived from the node's own
    # writers and bound runnable, which the print still walks; filled on a node's first run
    # (a LangGraph that moves the class only makes every run build anew)
    "flat_writers": _PREGEL_NODE,
    "node": _PREGEL_NODE,
    "input_cache_key": _PREGEL_NODE,
}


# what a recording model's restart resets before each run, and LangChain's memo of the
# model's serialized form for callbacks (the rest of its state is printed: a middleware may
# keep state on the model, say in its ``metadata``)
_RESTARTED = frozenset({"_raw", "_requests", "script", "_scripted", "_serialized"})


def is_pure_memo(owner: Any, name: str) -> bool:
    """Whether ``owner.name`` is a memo the same on any build (left out of the print)."""
    owners = _PURE_MEMOS.get(name)
    if owners is None:
        return False
    if isinstance(owners, str):
        kind = type(owner)
        return f"{kind.__module__}.{kind.__qualname__}".startswith(owners)
    return isinstance(owner, owners)


class _LeftOut:
    """The print's filter for a build run with given models: pure memos, and what restarting
    those models (and the scripted models inside them) resets, on them alone. ``names`` are
    the only names it leaves out, so the print asks it about those alone."""

    names = _RESTARTED | frozenset(_PURE_MEMOS)

    def __init__(self, models: dict[str, RecordingChatModel]) -> None:
        self.restarted = frozenset(id(m) for model in models.values() for m in (model, model.inner))

    def __call__(self, owner: Any, name: str) -> bool:
        if name in _RESTARTED and id(owner) in self.restarted:
            return True
        return is_pure_memo(owner, name)


def _left_out(models: dict[str, RecordingChatModel]) -> Callable[[Any, str], bool]:
    """The print's filter for a build run with ``models`` (see ``_LeftOut``)."""
    return _LeftOut(models)


@dataclass(frozen=True)
class _Build:
    agent: Any
    models: dict[str, RecordingChatModel]
    built: list[Any]  # its state print, right after building
    left_out: Callable[[Any, str], bool]  # what the print leaves out (the models are held)
    test: Any  # the memo of the test it was built in (None: outside one), held for identity


class ReusedBuild:
    """A factory's agent, built once and run many times while its state stays as built."""

    def __init__(
        self, build: Callable[[dict[str, Any]], Any], models: Callable[[Any], dict[str, Any]]
    ) -> None:
        self._build, self._models = build, models
        self._kept: _Build | None = None  # the build the next run may take
        self._running: _Build | None = None
        self.changed = ""  # where a run changed the build, once one did: no more reuse

    def agent_and_models(self, script: Any) -> tuple[Any, dict[str, Any]]:
        """An agent whose state is as built, and its models, set to play ``script``; call
        ``returned()`` after running it."""
        kept, self._kept = self._kept, None  # taken: a run that raises leaves nothing kept
        if kept is not None and kept.test is current_test_memo():  # fixtures are per test
            for model in kept.models.values():
                model._restart(script)
            self._running = kept
            return kept.agent, kept.models
        models = self._models(script)
        agent = self._build(models)
        self._running = self._printed(agent, models)
        return agent, models

    def keep(self, agent: Any, models: dict[str, Any]) -> None:
        """Keep ``agent``, just built with ``models`` and not run yet, for the next run (a
        target recognising the factory built it)."""
        if self._kept is None:
            self._kept = self._printed(agent, models)

    def _printed(self, agent: Any, models: dict[str, Any]) -> _Build | None:
        """The build with its print, taken now; None when builds are not reused."""
        if self.changed or not all(isinstance(m, RecordingChatModel) for m in models.values()):
            return None
        left_out = _left_out(models)
        built = state_print(agent, left_out)
        return _Build(agent, models, built, left_out, current_test_memo())

    def returned(self) -> None:
        """Keep the build just run for the next run when the run left it as built."""
        running, self._running = self._running, None
        if running is None:
            return
        if state_print(running.agent, running.left_out) == running.built:
            self._kept = running
            return
        where = first_difference(running.built, running.agent, running.left_out)
        self.changed = f"a run changed the agent's {where or 'state'}"
