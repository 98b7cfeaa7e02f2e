"""Targets: how contract checks build and run an agent of a given framework.

A check takes the user's factory ``build(model) -> agent`` and asks ``as_target`` for the
framework that runs it: hookproof's runtime (``reference``), its Eino dialect (``eino``),
LangChain ``create_agent`` and deepagents graphs (``langchain``), plus ``harness`` and
``deepagents`` for authoring deep agents in the conformance probes. Each target is one
module with one ``Target`` subclass; a new framework is a module that subclasses ``Target``
and calls ``register_target``. Frameworks are imported only when a factory or middleware
reaches their entry.

``hookproof.targets.interrupts`` (answering interrupts, the resume loop) and
``hookproof.targets.samples`` (sample requests and hook callers) are there for target
authors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hookproof.targets._base import DEFAULT_INPUT, Build, IsolationRuns, Target, TargetRun
from hookproof.targets._registry import (
    as_target,
    middleware_target,
    register_target,
    registered_targets,
    target_class,
    unregister_target,
)
from hookproof.targets.interrupts import OnInterrupt

if TYPE_CHECKING:
    from hookproof.targets.eino import EinoTarget
    from hookproof.targets.reference import HarnessTarget, ReferenceTarget

__all__ = [
    "DEFAULT_INPUT",
    "Build",
    "EinoTarget",
    "HarnessTarget",
    "IsolationRuns",
    "OnInterrupt",
    "ReferenceTarget",
    "Target",
    "TargetRun",
    "as_target",
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
