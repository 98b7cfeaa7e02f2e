"""The bridge keeps each value's LangChain view as long as the value lives, and no longer:
a long property test runs thousands of bridged agents, and views kept past their values
would pile up for the garbage collector to walk on every full collection.

A twin that keeps views strongly (as the bridge did) is shown caught.
"""

from __future__ import annotations

import gc
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

import hookproof.adapters.langchain.bridge._kept as kept_module
from hookproof.adapters.langchain.bridge._views import hp_message, lc_message
from hookproof.examples.dynamic_routing import SYSTEM_PROMPT, AgentContext
from hookproof.examples.langchain_routing import LANGCHAIN_BUSINESS_TOOLS, LangChainRouter
from hookproof.messages import UserMessage
from hookproof.models import RecordingModel, ScriptedModel
from hookproof.runtime import create_agent


def _one_bridged_run() -> None:
    models = {
        name: RecordingModel(ScriptedModel(["done"], name=name)) for name in ("fast", "reasoning")
    }
    agent = create_agent(
        models["fast"],
        list(LANGCHAIN_BUSINESS_TOOLS),
        system_prompt=SYSTEM_PROMPT,
        middleware=[LangChainRouter(models)],
    )
    result = agent.invoke({"messages": [("user", "hi")]}, context=AgentContext("guest", "fast"))
    assert result.messages[-1].text == "done"


def _objects_left_per_run(runs: int = 60) -> float:
    # Caches that fill once (per class, per tool) or are bounded (the views of tuples, which
    # take no weak reference, the most recent 128) fill here.
    for _ in range(2 * kept_module._STRONG_MAX):
        _one_bridged_run()
    gc.collect()
    before = len(gc.get_objects())
    for _ in range(runs):
        _one_bridged_run()
    gc.collect()
    return (len(gc.get_objects()) - before) / runs


def test_a_view_leads_back_to_its_message_while_both_live() -> None:
    message = UserMessage(content="hi")
    view = lc_message(message)

    assert lc_message(message) is view
    assert hp_message(view) is message


def test_a_views_entry_goes_with_its_message() -> None:
    message = UserMessage(content="hi")
    view = lc_message(message)
    entries = len(kept_module._views), len(kept_module._originals)

    del message
    gc.collect()

    assert (len(kept_module._views), len(kept_module._originals)) < entries
    assert hp_message(view).text == "hi"  # converted afresh, as any LangChain message


def test_bridged_runs_leave_no_objects_behind() -> None:
    assert _objects_left_per_run() < 2


def test_the_count_catches_views_kept_strongly(monkeypatch: pytest.MonkeyPatch) -> None:
    held: list[Any] = []
    real_keep = kept_module.keep

    def keeps_strongly(original: Any, view: Any) -> Any:
        held.append((original, view))
        return real_keep(original, view)

    monkeypatch.setattr(kept_module, "keep", keeps_strongly)
    import hookproof.adapters.langchain.bridge._views as views_module

    monkeypatch.setattr(views_module, "keep", keeps_strongly)

    assert _objects_left_per_run() > 10
