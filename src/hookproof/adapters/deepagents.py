"""The deepagents target: LangChain graphs built by ``deepagents.create_deep_agent``.

Checks run deepagents graphs through ``LangChainTarget`` (a deep agent is a LangChain graph);
this target adds how a deep agent is authored, for the conformance probes: its
``create_deep_agent`` and its harness profiles. Importing it imports deepagents.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar

from deepagents import HarnessProfile, create_deep_agent, register_harness_profile

from hookproof.adapters.langchain import LangChainTarget

__all__ = ["DeepAgentsTarget"]


class DeepAgentsTarget(LangChainTarget):
    """Authors deep agents with deepagents' own create_deep_agent and profiles."""

    has_harness_profiles: ClassVar[bool] = True

    @classmethod
    def create_agent(
        cls, model: Any, tools: Sequence[Any] = (), middleware: Sequence[Any] = ()
    ) -> Any:
        return create_deep_agent(model=model, tools=list(tools), middleware=list(middleware))

    @classmethod
    @contextmanager
    def harness_profiles(cls) -> Iterator[Callable[..., None]]:
        """deepagents keeps one process-wide registry: profiles stay registered after the
        block, so use keys of your own."""
        yield lambda key, **fields: register_harness_profile(key, HarnessProfile(**fields))
