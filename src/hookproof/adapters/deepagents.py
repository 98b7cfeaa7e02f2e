"""The deepagents roles: LangChain graphs built by ``deepagents.create_deep_agent``.

Checks run deepagents graphs through ``LangChainTarget`` (a deep agent is a LangChain graph)
and call deepagents middleware with LangChain's hook sampler; this module adds how a deep
agent is authored, for the conformance probes: ``DEEPAGENTS_KIT``, LangChain's kit with
deepagents' own ``create_deep_agent`` and harness profiles. Importing it imports deepagents.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from deepagents import HarnessProfile, create_deep_agent, register_harness_profile

from hookproof.adapters.langchain.target import LANGCHAIN_KIT, LangChainTarget

__all__ = ["DEEPAGENTS_KIT", "DeepAgentsTarget"]


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
