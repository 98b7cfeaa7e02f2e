"""Targets: how contract checks build and run an agent of a given framework, by role.

A check takes the user's factory ``build(model) -> agent`` and asks ``as_target`` for the
framework that runs it: hookproof's runtime (``reference``), its Eino dialect (``eino``),
LangChain ``create_agent`` and deepagents graphs (``langchain``), plus ``harness`` and
``deepagents`` for authoring deep agents in the conformance probes. A framework has up to
three roles, each used by its own users: a ``Target`` runs agents (contract checks), a
``HookSampler`` calls one middleware's hooks on sample requests (middleware checks, through
``hook_sampler``), a ``ConformanceKit`` authors tiny agents (``hookproof conformance``).
A new framework is one module with its roles plus one ``register_target`` entry, the only
list of frameworks: detection, middleware, the runtime's bridges and the conformance
columns all read it. Frameworks are imported only when something reaches their entry.

``hookproof.targets.interrupts`` (answering interrupts, the resume loop),
``hookproof.targets.sampler`` (hook sampling: hook callers), ``hookproof.targets.samples``
(the reference runtime's sample requests) and
``hookproof.targets.authoring`` (the conformance kit) are there for target authors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hookproof.targets._base import (
    DEFAULT_INPUT,
    Build,
    IsolationRuns,
    RunSettings,
    RunWithTarget,
    Target,
    TargetRun,
)
from hookproof.targets._registry import (
    as_target,
    conformance_columns,
    conformance_kit,
    hook_sampler,
    middleware_target,
    register_target,
    registered_targets,
    target_class,
    unregister_target,
)
from hookproof.targets.authoring import ConformanceKit
from hookproof.targets.interrupts import OnInterrupt
from hookproof.targets.sampler import HookSampler

if TYPE_CHECKING:
    from hookproof.targets.eino import EinoTarget
    from hookproof.targets.reference import HarnessTarget, ReferenceTarget

__all__ = [
    "DEFAULT_INPUT",
    "Build",
    "ConformanceKit",
    "EinoTarget",
    "HarnessTarget",
    "HookSampler",
    "IsolationRuns",
    "OnInterrupt",
    "ReferenceTarget",
    "RunSettings",
    "RunWithTarget",
    "Target",
    "TargetRun",
    "as_target",
    "conformance_columns",
    "conformance_kit",
    "hook_sampler",
    "middleware_target",
    "register_target",
    "registered_targets",
    "target_class",
    "unregister_target",
]

_CLASSES = {"EinoTarget": "eino", "HarnessTarget": "harness", "ReferenceTarget": "reference"}


def __getattr__(name: str) -> Any:
    if name in _CLASSES:
        return target_class(_CLASSES[name])
    raise AttributeError(f"module 'hookproof.targets' has no attribute {name!r}")
