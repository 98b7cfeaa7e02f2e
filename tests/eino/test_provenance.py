"""An Eino model call that nothing changed on its way shares its agent's provenance, computed
once; every other call reads its own. Both give what reading each call's changes gives."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from hookproof.eino import ChatModelAgent
from hookproof.eino._notes import EinoNotes
from hookproof.eino._provenance import AgentProvenance
from hookproof.messages import SystemMessage, text_message
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.runtime import ToolMessage
from hookproof.snapshot import render
from tests.eino.helpers import Annotating, Briefing, EveryHook, lookup, search


class DropsLookup(EveryHook):
    """before_agent hands the run fewer tools and a longer instruction."""

    def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
        tools = [item for item in agent_ctx.tools if item.info().name != "lookup"]
        return ctx, agent_ctx.override(instruction=agent_ctx.instruction + "\nShort.", tools=tools)


class Replaces(EveryHook):
    """Shows the model another system prompt, keeping the one it replaced."""

    original: Any = None

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        self.original = state.messages[0]
        other = text_message(SystemMessage, "Other.")
        return ctx, state.override(messages=(other, *state.messages[1:]))


class PutsBack(EveryHook):
    """Puts back the very system message ``Replaces`` took out: the model is shown the
    agent's own, and the provenance names the handler that wrote it last."""

    def __init__(self, replaced: Replaces) -> None:
        self.replaced = replaced

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        return ctx, state.override(messages=(self.replaced.original, *state.messages[1:]))


def _put_back() -> list[EveryHook]:
    replaced = Replaces()
    return [replaced, PutsBack(replaced)]


def _turn(request: Any) -> Any:
    if any(isinstance(message, ToolMessage) for message in request.messages):
        return "done"
    return call("search", {"q": "x"}, id="call_0")


AGENTS: dict[str, dict[str, Any]] = {
    "no instruction": {},
    "instruction": {"instruction": "You help.\nBe kind."},
    "handlers that change nothing": {"instruction": "You help.", "handlers": [EveryHook()]},
    "state rewrite": {"instruction": "You help.", "handlers": [Briefing()]},
    "model wrapper": {"instruction": "You help.", "handlers": [Annotating()]},
    "before_agent": {"instruction": "You help.", "handlers": [DropsLookup()]},
    "rewrite undone": {"instruction": "You help.", "handlers": _put_back()},
}
CHANGED = ("state rewrite", "model wrapper", "before_agent", "rewrite undone")


def provenance_shown(settings: dict[str, Any], streaming: bool) -> list[str]:
    model = RecordingModel(ScriptedModel(_turn))
    agent = ChatModelAgent(model=model, tools=[search, lookup], **settings)
    run = agent.run([("user", "hi")], enable_streaming=streaming)
    assert run.error is None and run.text == "done"
    assert len(model.requests) == 2
    return [text[text.index("\nprovenance:\n") :] for text in map(render, model.requests)]


def counting_shared(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each model call got its agent's shared provenance, from now on."""
    found: list[bool] = []
    read = EinoNotes.model_called

    def counted(self: EinoNotes, *args: Any) -> Any:
        provenance = read(self, *args)
        found.append(type(provenance) is AgentProvenance)
        return provenance

    monkeypatch.setattr(EinoNotes, "model_called", counted)
    return found


@pytest.mark.parametrize("streaming", [False, True], ids=["generate", "stream"])
@pytest.mark.parametrize("name", list(AGENTS))
def test_a_shared_provenance_is_what_reading_the_changes_gives(
    name: str, streaming: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = counting_shared(monkeypatch)
    found = provenance_shown(AGENTS[name], streaming)
    assert shared == [name not in CHANGED] * 2  # each model call took the path the test is about
    monkeypatch.setattr(EinoNotes, "model_called", EinoNotes.pending)
    assert provenance_shown(AGENTS[name], streaming) == found


def test_a_change_is_named_in_the_provenance_and_its_absence_is_the_agents() -> None:
    changed = provenance_shown(AGENTS["before_agent"], streaming=False)[0]
    assert "system 2: DropsLookup" in changed and "removed by DropsLookup" in changed
    undone = provenance_shown(AGENTS["rewrite undone"], streaming=False)[0]
    assert "system 1: PutsBack" in undone  # the agent's own message, written by PutsBack
    unchanged = provenance_shown(AGENTS["instruction"], streaming=False)[0]
    assert unchanged.splitlines()[1:] == [
        "provenance:",
        "  system 1-2: agent",
        "  tool lookup: registered by agent",
        "  tool search: registered by agent",
    ]


def test_the_shared_provenance_is_computed_once_per_agent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hookproof.eino import _provenance

    computed: list[Callable[..., Any]] = []
    compute = _provenance.compute
    monkeypatch.setattr(
        _provenance, "compute", lambda *args: computed.append(compute) or compute(*args)
    )
    model = RecordingModel(ScriptedModel(_turn))
    agent = ChatModelAgent(model=model, tools=[search], instruction="You help.")
    for _ in range(3):
        agent.run([("user", "hi")])
    assert computed == []  # nothing read yet: nothing computed
    texts = {render(request) for request in model.requests}
    assert len(model.requests) == 6 and len(computed) == 1
    assert len(texts) == 2  # each turn's request, with one provenance
