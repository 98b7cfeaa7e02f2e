"""Source texts of models that are not declared offline, for the projects and child processes
the guard's tests write: one definition each, so every test refuses the same model."""

from __future__ import annotations

from textwrap import indent

# hookproof's runtime with a model that is not offline (cheap to start in a child process).
PROVIDER_MODEL = """
from hookproof.models import ScriptedModel
from hookproof.runtime import create_agent

class ProviderModel:
    name = "provider"
    def invoke(self, request):
        return ScriptedModel(["live"]).invoke(request)
"""

# A LangChain chat model standing for a provider's (it answers "live" where one would call out).
LANGCHAIN_PROVIDER = """
class Provider(SimpleChatModel):
    def _call(self, *args, **kwargs):
        return "live"
    @property
    def _llm_type(self):
        return "provider"
"""


def indented(source: str) -> str:
    """``source`` as the body of a function in a written test module."""
    return indent(source, "    ")
