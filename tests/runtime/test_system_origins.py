"""An agent built from prompt parts names each part's author in its FinalRequests'
provenance, on a new agent: the one it came from is left as it is."""

from __future__ import annotations

from hookproof.models import ScriptedModel
from hookproof.runtime import create_agent


def test_with_system_origins_names_the_author_of_each_prompt_line() -> None:
    agent = create_agent(ScriptedModel(["done"] * 2), system_prompt="base rules\nteam rules")

    marked = agent.with_system_origins(["harness", "agent"])
    request = marked.invoke({"messages": [("user", "hi")]}).final_requests[0]
    plain = agent.invoke({"messages": [("user", "hi")]}).final_requests[0]

    assert request.provenance is not None and plain.provenance is not None
    assert request.provenance.system == ("harness", "agent")
    assert plain.provenance.system == ("agent", "agent")


def test_origins_that_do_not_match_the_prompt_lines_are_not_used() -> None:
    agent = create_agent(ScriptedModel(["done"]), system_prompt="one line")

    request = agent.with_system_origins(["a", "b"]).invoke({"messages": [("user", "hi")]})

    provenance = request.final_requests[0].provenance
    assert provenance is not None and provenance.system == ("agent",)
