"""Conformance authoring: how the conformance probes author a tiny agent in a framework.

A framework's ``ConformanceKit`` is named by its registry entry (``register_target(...,
kit=...)``); ``hookproof conformance`` runs the same probes through every kit.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from hookproof._support.untimed import untimed
from hookproof.messages import Message

__all__ = ["ConformanceKit", "HarnessProfiles"]

#: A scope in which ``register(key, **profile_fields)`` registers a harness profile.
HarnessProfiles = Callable[[], AbstractContextManager[Callable[..., None]]]


@dataclass(frozen=True)
class ConformanceKit:
    """What the probes need to author and run a tiny agent in one framework.

    ``create_agent(model, tools, middleware)`` builds an agent; ``tool(function)`` makes a
    tool of a typed, documented function; ``scripted_model(*turns, name=..., provider=...)``
    a model playing ``turns`` that records what it receives (``.last`` is a FinalRequest);
    ``wrap_model_layer(name, wrap)`` a middleware whose wrap_model_call is
    ``wrap(request, handler)``; ``after_model_hook(name, hook)`` one whose after_model hook
    is ``hook(state, runtime)``; ``invoke`` / ``ainvoke(agent, input)`` run the agent once
    and return its final messages as hookproof messages; ``model_request()`` a model request
    of the framework (to see how deeply its ``override`` copies). A deep-agent harness also
    has ``harness_profiles``, a scope registering harness profiles."""

    create_agent: Callable[[Any, Sequence[Any], Sequence[Any]], Any]
    tool: Callable[[Callable[..., Any]], Any]
    scripted_model: Callable[..., Any]
    wrap_model_layer: Callable[[str, Callable[[Any, Any], Any]], Any]
    after_model_hook: Callable[[str, Callable[[Any, Any], Any]], Any]
    invoke: Callable[[Any, Mapping[str, Any]], list[Message]]
    ainvoke: Callable[[Any, Mapping[str, Any]], Coroutine[Any, Any, list[Message]]]
    model_request: Callable[[], Any]
    harness_profiles: HarnessProfiles | None = None

    def __post_init__(self) -> None:
        # A probe's run time is hookproof's, not a hypothesis example's (see _untimed).
        object.__setattr__(self, "invoke", untimed(self.invoke))
        object.__setattr__(self, "ainvoke", untimed(self.ainvoke))
