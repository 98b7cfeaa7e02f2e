"""Where each tool and each line of the system prompt of a FinalRequest came from.

The engine notes every model layer that passed its inner handler a request different from
the one it received (which middleware, or which harness layer, and both requests). From
those notes and the origin of each registered tool, ``Provenance`` says, per tool, who
registered it and which layer added, changed or removed it, and per system-prompt line which
layer wrote it. Snapshots render it after the tools, and the gate names the origin of every
change ("tool `delete` now visible (registered by FilesystemMiddleware)").

Provenance is information about a request, not part of it: two FinalRequests that differ only
in provenance are equal. ``AGENT`` is the origin of what the agent itself was given (its
``tools=`` and ``system_prompt``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from types import SimpleNamespace
from typing import Any

from hookproof._support.origins import (
    AGENT,
    prompt_lines,
    relabel,
    schemas_by_name,
    tool_events,
)
from hookproof._support.origins import map_lines as map_lines  # where snapshots import it

__all__ = ["AGENT", "Provenance", "Section", "ToolOrigin"]


@dataclass(frozen=True, slots=True)
class ToolOrigin:
    """One tool's history: ``events`` such as ``registered by agent``, ``added by X``,
    ``description changed by X``, ``removed by X``; ``visible`` whether the model saw it."""

    name: str
    events: tuple[str, ...]
    visible: bool = True

    def describe(self) -> str:
        return "; ".join(self.events)


@dataclass(frozen=True, slots=True)
class Section:
    """Lines ``first``..``last`` (1-based, inclusive) of the system prompt, written by
    ``origin``."""

    first: int
    last: int
    origin: str

    def lines(self) -> str:
        return str(self.first) if self.first == self.last else f"{self.first}-{self.last}"


@dataclass(frozen=True, slots=True)
class Provenance:
    """The origin of every tool (those the model saw and those a layer removed) and of
    every line of the system prompt's text, in order."""

    tools: tuple[ToolOrigin, ...] = ()
    system: tuple[str, ...] = ()

    def tool(self, name: str) -> ToolOrigin | None:
        return next((item for item in self.tools if item.name == name), None)

    @property
    def sections(self) -> tuple[Section, ...]:
        """Runs of consecutive system-prompt lines with one origin."""
        return tuple(runs(self.system))

    def describe(self) -> str:
        lines = [f"system {item.lines()}: {item.origin}" for item in self.sections]
        lines += [f"tool {item.name}: {item.describe()}" for item in self.tools]
        return "\n".join(lines)


def runs(origins: Sequence[str]) -> Iterator[Section]:
    start = 0
    for index in range(1, len(origins) + 1):
        if index == len(origins) or origins[index] != origins[start]:
            yield Section(start + 1, index, origins[start])
            start = index


# -- computing it from what the engine reports ------------------------------------------------

Edit = tuple[str, Any, Any]  # (layer owner, request it received, request it passed on)
# A dialect's changes before its model layers, for a layer's value: (the request they started
# from, or None for none; their edits, outermost first).
PriorEdits = Callable[[Any], tuple[Any, Sequence[Edit]]]


def _no_prior_edits(call: Any) -> tuple[Any, Sequence[Edit]]:
    return None, ()


class ProvenanceSource:
    """What the provenance of every request of one agent's runs is read with, beside the
    requests (made once per agent). ``origins``: who registered each tool, by name (absent:
    AGENT); ``request_of``: the request a layer's value holds, read without checks (None for
    a value that holds none); ``system_origins``: the origin of each line of the agent's own
    system prompt, where not all AGENT's; ``prior``: the dialect's own changes before its
    model layers; ``agent_edits_last``: see ``compute``."""

    __slots__ = (
        "agent_edits_last",
        "origins",
        "prior",
        "read_request",
        "request_of",
        "system_origins",
    )

    def __init__(
        self,
        origins: Mapping[str, str],
        *,
        request_of: Callable[[Any], Any],
        system_origins: Sequence[str] = (),
        prior: PriorEdits = _no_prior_edits,
        agent_edits_last: bool = False,
    ) -> None:
        self.origins = origins
        self.request_of = request_of
        self.read_request = partial(_read_request, request_of)
        self.system_origins = tuple(system_origins)
        self.prior = prior
        self.agent_edits_last = agent_edits_last


def provenance_observer(
    origins: Mapping[str, str],
    *,
    request_of: Callable[[Any], Any],
    system_origins: Sequence[str] = (),
    prior: PriorEdits = _no_prior_edits,
    agent_edits_last: bool = False,
) -> Callable[[], ProvenanceNotes]:
    """What an agent's engine calls to make each run's provenance observer (arguments as
    ``ProvenanceSource``'s). The observer is made in C: a run pays no Python call for it."""
    source = ProvenanceSource(
        origins,
        request_of=request_of,
        system_origins=system_origins,
        prior=prior,
        agent_edits_last=agent_edits_last,
    )
    return partial(ProvenanceNotes, source=source)


# A namespace (made in C, and whose attributes need no __init__) for the two values the
# engine makes at every run and every model call: ProvenanceNotes and Pending.


class ProvenanceNotes(SimpleNamespace):
    """The observer of one run that records provenance (``source``: its agent's
    ProvenanceSource): the engine reports each model layer that handed its inner handler
    another request (``request_passed``) until that inner call returns, and asks for the
    provenance of every request the model receives."""

    source: ProvenanceSource
    edits: tuple[Edit, ...] = ()  # the changes under way, outermost first (immutable: shared)

    def request_passed(self, owner: str, received: Any, passed: Any) -> None:
        self.edits = (*self.edits, (owner, received, passed))

    def request_returned(self) -> None:
        self.edits = self.edits[:-1]

    def model_called(self, call: Any, request: Any) -> Pending:
        source, edits = self.source, self.edits
        prior_of = source.prior
        prior: Sequence[Edit] = ()
        if prior_of is _no_prior_edits:
            if not edits:  # nothing changed it: the request the model receives is where it starts
                return Pending(arguments=(source, None, (), request.tools, request.system_message))
            start = None
        else:
            start, prior = prior_of(call)
        base = start if start is not None else edits[0][1] if edits else call
        if base is call and not prior and not edits:
            base = None
        kind, request_of = type(request), source.request_of
        if base is not None and type(base) is kind:
            base = _read_of(base, request_of)
        steps = []
        for owner, old, new in (*prior, *edits):  # _kept inline: Eino passes here every call
            if type(old) is kind:
                old = _read_of(old, request_of)
            if type(new) is kind:
                new = _read_of(new, request_of)
            steps.append((owner, old, new))
        arguments = (source, base, tuple(steps), request.tools, request.system_message)
        return Pending(arguments=arguments)


class ResolvedWhenCopied:
    """A provenance computed on first use: a copy or a pickle holds the computed result."""

    __slots__ = ()

    def resolve(self) -> Provenance:
        raise NotImplementedError

    def __deepcopy__(self, memo: dict[int, Any]) -> Provenance:
        return self.resolve()

    def __copy__(self) -> Provenance:
        return self.resolve()

    def __reduce__(self) -> tuple[Any, ...]:
        result = self.resolve()
        return (Provenance, (result.tools, result.system))


class Pending(ResolvedWhenCopied, SimpleNamespace):
    """Provenance computed on first use: most FinalRequests are never rendered, so a run
    only keeps what it would be computed from (``arguments``: the ProvenanceSource, the
    base and edits as ``compute`` takes them, the final request's tools and system message).
    A copy or a pickle holds the result.

    A request of the final one's own kind is read at once, down to the tools and system
    message the computation reads: a request holds its model, and a recording model holds
    its FinalRequests and so this, a cycle that would leave every run to the garbage
    collector."""

    arguments: tuple[Any, ...] | None
    result: Provenance | None = None

    def resolve(self) -> Provenance:
        result = self.result
        if result is not None:
            return result
        arguments = self.arguments
        if arguments is None:  # another thread resolved it meanwhile
            assert self.result is not None
            return self.result
        source, base, edits, tools, system_message = arguments
        result = self.result = compute(
            base,
            edits,
            _Read(tools=tools, system_message=system_message),
            source.origins,
            source.read_request,
            source.system_origins,
            source.agent_edits_last,
        )
        self.arguments = None  # let the requests go
        return result


class PendingProvenance(Pending):
    """A ``Pending`` made from ``compute``'s own arguments (``final``: the request the model
    received), for a caller other than the engine."""

    def __init__(
        self,
        base: Any,
        edits: Sequence[Edit],
        final: Any,
        origins: Mapping[str, str],
        request_of: Callable[[Any], Any],
        system_origins: Sequence[str] = (),
        agent_edits_last: bool = False,
    ) -> None:
        kind = type(final)
        source = ProvenanceSource(
            origins,
            request_of=request_of,
            system_origins=system_origins,
            agent_edits_last=agent_edits_last,
        )
        super().__init__(
            arguments=(
                source,
                None if base is None else _kept(base, kind, request_of),
                tuple(
                    [
                        (owner, _kept(old, kind, request_of), _kept(new, kind, request_of))
                        for owner, old, new in edits
                    ]
                ),
                final.tools,
                final.system_message,
            )
        )


# What the computation reads of a request: its tools and its system message (a namespace:
# made in C, once per request a run keeps).
_Read = SimpleNamespace
_HOLDS_NONE = _Read(tools=(), system_message=None)  # a value of the request's kind holding none


def _kept(value: Any, kind: type, request_of: Callable[[Any], Any]) -> Any:
    if type(value) is not kind:
        return value  # a dialect's own value (Eino's state): read on first use
    return _read_of(value, request_of)


def _read_of(value: Any, request_of: Callable[[Any], Any]) -> Any:
    request = request_of(value)
    if request is None:
        return _HOLDS_NONE
    return _Read(tools=request.tools, system_message=request.system_message)


def _read_request(request_of: Callable[[Any], Any], value: Any) -> Any:
    """``request_of`` for values kept as they were, what was read already for the others."""
    if type(value) is not _Read:
        return request_of(value)
    return None if value is _HOLDS_NONE else value


def compute(
    base: Any,
    edits: Sequence[Edit],
    final: Any,
    origins: Mapping[str, str],
    request_of: Callable[[Any], Any] = lambda value: value,
    system_origins: Sequence[str] = (),
    agent_edits_last: bool = False,
) -> Provenance:
    """Provenance of ``final`` (a ModelRequest): ``base`` is what the outermost model layer
    received, ``edits`` each layer's change in order from the outside in, ``origins`` who
    registered each tool by name (AGENT when absent), ``request_of`` the request a layer's
    value holds (None for a value that holds none), ``system_origins`` the origin of each
    line of the agent's own system prompt where it is not all AGENT's (a harness's base
    prompt, say). With ``agent_edits_last`` (the LangChain dialect), a tool ``final`` holds
    that no layer passed on was set by the agent after every layer (LangChain's artificial
    structured-output tools), and a request no layer changed is the one the agent gave."""
    steps = [(owner, request_of(before), request_of(after)) for owner, before, after in edits]
    # A dialect's own values between its layers (Eino's state before it is a request) hold
    # no request: the first request found is where the history starts.
    known = [request_of(base), *(item for _, old, new in steps for item in (old, new))]
    # With no layer between, what the model received is what the agent gave it (as a
    # LangChain run reads it: its artificial structured-output tools registered by the agent).
    start = next((item for item in known if item is not None), final)
    if agent_edits_last and not steps:
        start = final
    history = {
        name: [f"registered by {origins.get(name, AGENT)}"] for name in schemas_by_name(start.tools)
    }
    given = prompt_lines(start)
    first = system_origins if len(system_origins) == len(given) else [AGENT] * len(given)
    lines = list(zip(given, first, strict=True))
    last = start
    for owner, old, new in steps:
        if old is None or new is None:
            continue
        tool_events(history, schemas_by_name(old.tools), schemas_by_name(new.tools), owner)
        lines = relabel(lines, prompt_lines(new), owner)
        last = new
    # What the dialect itself set after every layer, if anything (LangChain's artificial
    # structured-output tools, say).
    if agent_edits_last:
        tool_events(history, schemas_by_name(last.tools), schemas_by_name(final.tools), AGENT)
    lines = relabel(lines, prompt_lines(final), AGENT)
    visible = set(schemas_by_name(final.tools))
    tools = tuple(
        ToolOrigin(name, tuple(events), name in visible) for name, events in sorted(history.items())
    )
    return Provenance(tools, tuple(origin for _, origin in lines))
