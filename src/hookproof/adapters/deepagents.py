"""The deepagents roles: LangChain graphs built by ``deepagents.create_deep_agent``.

Checks run deepagents graphs through ``LangChainTarget`` (a deep agent is a LangChain graph)
and call deepagents middleware with LangChain's hook sampler; this module adds how a deep
agent is authored, for the conformance probes: ``DEEPAGENTS_KIT``, LangChain's kit with
deepagents' own ``create_deep_agent`` and harness profiles; and ``BUILTIN_TOOL_NAMES``, the
tools the installed deepagents adds to yours (a frozenset read off a deep agent built without
tools, on first use: write_todos, ls, read_file, ... as that version has them; execute
included). Pass ``skip=BUILTIN_TOOL_NAMES`` to ``contracts.check_allowed_calls_succeed`` to
check only your own tools. Importing the module imports deepagents.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import cache
from typing import Any

from deepagents import HarnessProfile, create_deep_agent, register_harness_profile

from hookproof.adapters.langchain.target import LANGCHAIN_KIT, LangChainTarget

__all__ = ["BUILTIN_TOOL_NAMES", "DEEPAGENTS_KIT", "DeepAgentsTarget"]


@cache
def _builtin_tool_names() -> frozenset[str]:
    """The tools a deep agent built without tools has: the installed deepagents' own list
    (0.7 adds no write_todos; execute is registered, and shown with a sandbox backend)."""
    target = DeepAgentsTarget(lambda model: create_deep_agent(model=model, tools=[]))
    return frozenset(target.tool_schemas())


BUILTIN_TOOL_NAMES: frozenset[str]  # annotation only: the module's __getattr__ gives it


def __getattr__(name: str) -> frozenset[str]:
    # BUILTIN_TOOL_NAMES is read off a deep agent, built on first use (not at import)
    if name == "BUILTIN_TOOL_NAMES":
        return _builtin_tool_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class DeepAgentsTarget(LangChainTarget):
    """The LangChain target registered as ``deepagents``, whose kit authors deep agents."""


def _create_agent(model: Any, tools: Sequence[Any], middleware: Sequence[Any]) -> Any:
    return create_deep_agent(model=model, tools=list(tools), middleware=list(middleware))


@contextmanager
def _harness_profiles() -> Iterator[Callable[..., None]]:
    """deepagents keeps one process-wide registry: profiles stay registered after the
    block, so use keys of your own."""
    yield lambda key, **fields: register_harness_profile(key, HarnessProfile(**fields))


DEEPAGENTS_KIT = replace(
    LANGCHAIN_KIT, create_agent=_create_agent, harness_profiles=_harness_profiles
)
