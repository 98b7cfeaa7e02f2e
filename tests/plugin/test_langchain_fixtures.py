"""scripted_chat_model / recording_chat_model: the marker's script as LangChain chat models."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("langchain", reason="install hookproof[langchain] to test the fixtures")

LANGCHAIN_TEST = '''
import pytest
from langchain.agents import create_agent
from langchain_core.tools import tool
from hookproof.models import call

@tool
def search(query: str) -> str:
    """Search the docs."""
    return "found:" + query

@pytest.mark.hookproof(script=[call("search", {"query": "q"}), "done"], model_name="fast")
def test_agent_request(recording_chat_model, hookproof_snapshot):
    agent = create_agent(recording_chat_model, [search], system_prompt="You are careful.")
    result = agent.invoke({"messages": [("user", "hi")]})
    assert result["messages"][-1].content == "done"
    assert len(recording_chat_model.requests) == 2
    assert recording_chat_model.last == hookproof_snapshot

@pytest.mark.hookproof(script=["scripted reply"])
def test_scripted_chat_model_plays_the_marker(scripted_chat_model):
    assert scripted_chat_model.invoke("hi").content == "scripted reply"
    assert scripted_chat_model.model_name == "scripted"
'''

WITHOUT_LANGCHAIN = """
import sys

import pytest

@pytest.fixture(autouse=True)
def _no_langchain(monkeypatch):
    monkeypatch.setitem(sys.modules, "langchain_core", None)
    monkeypatch.delitem(sys.modules, "hookproof.adapters.langchain", raising=False)
"""


def _snapshot(pytester: pytest.Pytester) -> Path:
    return pytester.path / "snapshots" / "test_langchain" / "test_agent_request.txt"


def test_recording_chat_model_writes_then_matches_a_snapshot(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_langchain=LANGCHAIN_TEST)
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=2)
    text = _snapshot(pytester).read_text(encoding="utf-8")
    assert 'model: "fast"\n' in text
    assert "  | You are careful.\n" in text
    assert "  search\n    description:\n    | Search the docs.\n" in text
    pytester.runpytest_inprocess().assert_outcomes(passed=2)


@pytest.mark.slow
def test_without_langchain_the_fixture_says_what_to_install(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(WITHOUT_LANGCHAIN)
    pytester.makepyfile(
        "def test_needs_langchain(recording_chat_model):\n    pass\n",
    )
    # In a process of its own: whether the import fails depends on what sys.modules holds.
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(errors=1)
    output = result.stdout.str()
    assert "hookproof: scripted_chat_model needs langchain-core, which cannot be imported" in output
    assert "Install it with `pip install 'hookproof[langchain]'`." in output


@pytest.mark.slow
def test_the_plugin_does_not_import_the_adapter(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        "import sys\n"
        "def test_cheap(hookproof_options):\n"
        "    assert 'hookproof.adapters.langchain' not in sys.modules\n"
        "    assert 'langchain_core' not in sys.modules\n"
    )
    # In a process of its own: this one has imported them already.
    pytester.runpytest_subprocess().assert_outcomes(passed=1)
