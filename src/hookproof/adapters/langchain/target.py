"""The LangChain framework as the target registry loads it: ``LangChainTarget`` runs factories
whose agents are LangChain ``create_agent`` or deepagents graphs (the ``langchain`` target),
``LANGCHAIN_SAMPLER`` gives the middleware contracts LangChain's hooks and samples, and
``LANGCHAIN_KIT`` authors the conformance probes on LangChain."""

from hookproof.adapters.langchain._samples import LANGCHAIN_SAMPLER
from hookproof.adapters.langchain._target import LANGCHAIN_KIT, LangChainTarget

__all__ = ["LANGCHAIN_KIT", "LANGCHAIN_SAMPLER", "LangChainTarget"]
