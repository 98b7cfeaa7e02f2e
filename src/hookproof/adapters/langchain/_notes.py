"""Provenance on LangChain: which model layer changed the request each model call received.

A model layer that hands its handler another ModelRequest than it received is noted as
(middleware, received, passed on) while the inner call lasts, as the reference engine does.
The notes live in a context variable, not in the run's tracer: a run's parallel tool calls
(deepagents' subagents) call models at the same time, each under its own layers. Where no
instrumented layer runs, the tools' origins found at build time stand for the notes.

Below both its users: instrumented builds (``tracing``) write the notes, the chat models
(``models``) keep each call's notes, and ``TRACER`` holds the running agent's TraceHandler.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any, TypeAlias

from hookproof.adapters.langchain._convert import request_view
from hookproof.models import FinalRequest

__all__ = [
    "ACTIVE_BUILDS",
    "NOTED",
    "TRACER",
    "Build",
    "Chain",
    "Noted",
    "Notes",
    "built_origins",
    "noted",
    "passing",
    "remember_origins",
    "with_noted_provenance",
]

TRACER: ContextVar[Any] = ContextVar("hookproof_langchain_tracer", default=None)  # the run's

Edit = tuple[str, Any, Any]


@dataclass(frozen=True, slots=True, eq=False)
class Chain:
    """One agent's composed model layers: who registered which tool, and how many layers."""

    origins: Mapping[str, str]
    layers: int


@dataclass(frozen=True, slots=True)
class Notes:
    chain: Chain
    edits: tuple[Edit, ...] = ()
    passed: int = 0  # layers of the chain now inside their handler


NOTED: ContextVar[Notes | None] = ContextVar("hookproof_langchain_model_edits", default=None)


@contextlib.contextmanager
def passing(owner: str, received: Any, passed: Any) -> Iterator[None]:
    """While it lasts, ``owner`` passes ``passed`` on (an edit when it is not what it
    received); nothing is noted outside an instrumented chain."""
    current = NOTED.get()
    if current is None:
        yield
        return
    edits = current.edits if passed is received else (*current.edits, (owner, received, passed))
    token = NOTED.set(Notes(current.chain, edits, current.passed + 1))
    try:
        yield
    finally:
        NOTED.reset(token)


@dataclass(frozen=True, slots=True)
class Build:
    """One ``create_agent`` call under ``instrumented_builds``: the tools it registered, who
    registered them, and whether it has model layers (whose calls note their own)."""

    tools: frozenset[str]
    origins: Mapping[str, str]
    layered: bool


@dataclass(frozen=True, slots=True)
class _Unlayered:
    """A model call in a graph's model node with no instrumented layer around it: an agent
    without model layers, one of ``builds`` if its tools say which (else unknown)."""

    builds: tuple[Build, ...]

    def origins_for(self, final: FinalRequest) -> Mapping[str, str] | None:
        names = frozenset(final.tool_names)
        found = {tuple(sorted(b.origins.items())) for b in self.builds if b.tools == names}
        return dict(found.pop()) if len(found) == 1 else None


# (tool origins, edits from the outside in), or the builds an unlayered call may come from
Noted: TypeAlias = tuple[Mapping[str, str], tuple[Edit, ...]] | _Unlayered

ACTIVE_BUILDS: dict[int, list[Build]] = {}  # the builds of each instrumented_builds() in force


def noted() -> Noted | None:
    """The notes for a model call made now: the model layers' edits, or, when no layer of
    an instrumented agent runs, the traced agent's tool origins; None when the agent was not
    built instrumented, or for a model a hook calls on its own (its provenance is unknown,
    not empty)."""
    current = NOTED.get()
    if current is not None:
        if current.passed < current.chain.layers:
            return None  # a model a layer calls itself (a selection or summary model)
        return current.chain.origins, current.edits
    tracer = TRACER.get()
    origins = None if tracer is None else tracer.origins
    if origins is not None:
        return (origins, ()) if _in_model_node() else None  # else a node hook's own model
    unlayered = tuple(b for builds in ACTIVE_BUILDS.values() for b in builds if not b.layered)
    if unlayered and _in_model_node():
        return _Unlayered(unlayered)
    return None


def _in_model_node() -> bool:
    """Whether this runs in the graph's model node (``create_agent`` names it "model")."""
    from langgraph.config import get_config

    try:
        metadata = get_config().get("metadata") or {}
    except RuntimeError:  # outside any graph run
        return False
    return bool(metadata.get("langgraph_node") == "model")


def with_noted_provenance(final: FinalRequest, notes: Noted | None) -> FinalRequest:
    """``final`` carrying the provenance the notes give (computed when first read)."""
    if isinstance(notes, _Unlayered):
        origins = notes.origins_for(final)
        notes = None if origins is None else (origins, ())
    if notes is None:
        return final
    from hookproof.provenance import PendingProvenance

    origins, edits = notes
    if not edits:
        return final.with_provenance(PendingProvenance(final, (), final, origins, _read))
    from hookproof.provenance import AGENT

    innermost = edits[-1][2]
    bound = (AGENT, innermost, _Bound(innermost, final))  # what LangChain bound after the hooks
    steps = (*edits, bound)
    return final.with_provenance(PendingProvenance(edits[0][1], steps, final, origins, _read))


@dataclass(frozen=True, slots=True)
class _Bound:
    """The request the innermost layer passed on, with the tools LangChain binds itself after
    the wrap hooks (a ToolStrategy response format's), as the model received them."""

    request: Any
    final: FinalRequest


def _read(value: Any) -> Any:
    if not isinstance(value, _Bound):
        return request_view(value)
    view = request_view(value.request)
    known = {item.name for item in view.tools}
    added = tuple(item for item in value.final.tools if item.name not in known)
    return replace(view, tools=(*view.tools, *added))


_BUILT: weakref.WeakKeyDictionary[Any, Mapping[str, str]] = weakref.WeakKeyDictionary()


def built_origins(agent: Any) -> Mapping[str, str] | None:
    """The tool origins found while building ``agent`` instrumented; None for another."""
    try:
        return _BUILT.get(agent)
    except TypeError:  # not weakly referenceable: never remembered
        return None


def remember_origins(agent: Any, origins: Mapping[str, str]) -> None:
    """Keep the tool origins found while building ``agent`` (see ``built_origins``)."""
    with contextlib.suppress(TypeError):
        _BUILT[agent] = origins
