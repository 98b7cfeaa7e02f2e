"""The snapshot fixture, marker, guard and options, from a downstream project's side."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

AGENT_TEST = '''
import pytest
from hookproof.models import call
from hookproof.runtime import create_agent, tool

@tool
def search(query: str) -> str:
    """{search_description}"""
    return "found"

@tool
def export(customer_id: str{export_extra}) -> str:
    """Export a report."""
    return "exported"

@tool
def delete_all() -> str:
    """Delete everything."""
    return "gone"

TOOLS = [{tools}]

@pytest.mark.hookproof(script=[call("search", {{"query": "q"}}), "done"])
def test_guest_request(recording_model, hookproof_snapshot):
    agent = create_agent(recording_model, TOOLS, system_prompt="You are careful.")
    agent.invoke({{"messages": [("user", "hi")]}})
    assert recording_model.last == hookproof_snapshot
'''


def _write(
    pytester: pytest.Pytester,
    *,
    search_description: str = "Search the docs.",
    tools: str = "search, export",
    export_extra: str = "",
) -> None:
    pytester.makepyfile(
        test_agent=AGENT_TEST.format(
            search_description=search_description, tools=tools, export_extra=export_extra
        )
    )


def _snapshot(pytester: pytest.Pytester) -> Path:
    return pytester.path / "snapshots" / "test_agent" / "test_guest_request.txt"


def _baseline(pytester: pytest.Pytester) -> None:
    _write(pytester)
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)


def test_snapshot_update_creates_one_readable_file(pytester: pytest.Pytester) -> None:
    _baseline(pytester)
    text = _snapshot(pytester).read_text(encoding="utf-8")
    assert text.startswith('hookproof final request, format 2\nmodel: "scripted"\n')
    assert "  | You are careful.\n" in text
    assert text.endswith(
        "\nprovenance:\n  system 1: agent\n"
        "  tool export: registered by agent\n  tool search: registered by agent\n"
    )
    assert "  search\n    description:\n    | Search the docs.\n" in text
    pytester.runpytest_inprocess().assert_outcomes(passed=1)


def test_changed_description_fails_with_review_naming_the_tool(pytester: pytest.Pytester) -> None:
    _baseline(pytester)
    _write(pytester, search_description="Search the docs and the web.")
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*hookproof semantic diff*", "*REVIEW   tool search: description changed*"]
    )


def test_removed_tool_reads_breaking(pytester: pytest.Pytester) -> None:
    _baseline(pytester)
    _write(pytester, tools="search")
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*BREAKING tool export: removed*"])


def test_newly_visible_tool_reads_security(pytester: pytest.Pytester) -> None:
    _baseline(pytester)
    _write(pytester, tools="search, export, delete_all")
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*SECURITY tool delete_all: now visible to the model*"])


def test_new_required_parameter_reads_breaking(pytester: pytest.Pytester) -> None:
    _baseline(pytester)
    _write(pytester, export_extra=", fmt: str")
    result = pytester.runpytest_inprocess()
    result.stdout.fnmatch_lines(["*BREAKING tool export: required parameter 'fmt' added*"])


def test_file_in_another_format_asks_for_regeneration(pytester: pytest.Pytester) -> None:
    _baseline(pytester)
    path = _snapshot(pytester)
    path.write_text(path.read_text().replace("format 2", "format 0"), encoding="utf-8")
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*--snapshot-update*"])
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    assert _snapshot(pytester).read_text().startswith("hookproof final request, format 2")


def test_skipped_and_deselected_tests_keep_their_snapshots(pytester: pytest.Pytester) -> None:
    _baseline(pytester)
    pytester.makepyfile(
        test_other="""
import pytest
from hookproof.runtime import create_agent

@pytest.mark.hookproof(script=["ok"])
def test_other(recording_model, hookproof_snapshot):
    create_agent(recording_model).invoke({"messages": [("user", "x")]})
    assert recording_model.last == hookproof_snapshot
"""
    )
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=2)
    other = pytester.path / "snapshots" / "test_other" / "test_other.txt"
    assert other.exists()
    pytester.runpytest_inprocess("--snapshot-update", "-k", "guest").assert_outcomes(passed=1)
    assert other.exists()
    skip = pytester.path / "conftest.py"
    skip.write_text(
        "import pytest\n"
        "def pytest_collection_modifyitems(items):\n"
        "    for item in items:\n"
        "        if item.name == 'test_other':\n"
        "            item.add_marker(pytest.mark.skip(reason='off'))\n"
    )
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1, skipped=1)
    assert other.exists()
    assert _snapshot(pytester).exists()


def test_ini_option_moves_the_snapshot_directory(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nhookproof_snapshot_dir = reviewed/requests\n")
    _write(pytester)
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    moved = pytester.path / "reviewed" / "requests" / "test_agent" / "test_guest_request.txt"
    assert moved.exists()


def _snapshot_bytes(pytester: pytest.Pytester, *args: str, seed: str) -> dict[str, bytes]:
    os.environ["PYTHONHASHSEED"] = seed
    try:  # a process of its own: the hash seed is fixed when Python starts
        pytester.runpytest_subprocess("--snapshot-update", *args).assert_outcomes(passed=3)
    finally:
        del os.environ["PYTHONHASHSEED"]
    root = pytester.path / "snapshots"
    files = {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.txt"))}
    for path in root.rglob("*.txt"):
        path.unlink()
    return files


@pytest.mark.slow
def test_snapshots_are_byte_identical_across_seeds_and_xdist(pytester: pytest.Pytester) -> None:
    _write(pytester, tools="search, export, delete_all")
    pytester.makepyfile(
        test_many='''
import pytest
from hookproof.models import call
from hookproof.runtime import create_agent, tool

@tool
def lookup(query: str, limit: int = 3) -> str:
    """Look up."""
    return "x"

@pytest.mark.parametrize("role", ["guest", "admin"])
@pytest.mark.hookproof(script=[call("lookup", {"query": "q", "limit": 1}), "ok"])
def test_role(role, recording_model, hookproof_snapshot):
    agent = create_agent(recording_model, [lookup], system_prompt=f"Role: {role}")
    agent.invoke({"messages": [("user", "hi")]})
    assert recording_model.last == hookproof_snapshot
'''
    )
    first = _snapshot_bytes(pytester, seed="0")
    second = _snapshot_bytes(pytester, seed="4242")
    parallel = _snapshot_bytes(pytester, "-n", "2", seed="7")
    assert len(first) == 3
    assert first == second == parallel


def test_marker_options_reach_the_fixtures(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
import pytest

pytestmark = pytest.mark.hookproof(model_name="module")

@pytest.mark.hookproof(model_name="fast", script=["hello"])
def test_closest_marker_wins(scripted_model, recording_model, hookproof_options):
    assert scripted_model.name == "fast"
    assert recording_model.inner is scripted_model
    assert hookproof_options.script == ["hello"]

def test_module_marker(scripted_model):
    assert scripted_model.name == "module"

@pytest.mark.hookproof(scirpt=["x"])
def test_unknown_option(hookproof_options):
    pass
"""
    )
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*unknown option 'scirpt'. Did you mean 'script'?*"])


REAL_MODEL_TEST = """
import pytest
from hookproof.models import ScriptedModel
from hookproof.runtime import create_agent

class ProviderModel:
    name = "provider-model"
    def invoke(self, request):
        return ScriptedModel(["live"]).invoke(request)

def run():
    return create_agent(ProviderModel()).invoke({"messages": [("user", "hi")]}).text

def test_blocked():
    run()

@pytest.mark.hookproof(allow_real_models=True)
def test_allowed():
    assert run() == "live"
"""


def test_real_models_are_blocked_unless_the_test_opts_in(
    pytester: pytest.Pytester, hookproof_guard: Any
) -> None:
    pytester.makepyfile(REAL_MODEL_TEST)
    # In process: the guard's policy nests (each phase restores the one it replaced).
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*RealModelBlocked*'provider-model'*allow_real_models=True*"])
    pytester.runpytest_inprocess("--hookproof-allow-real-models").assert_outcomes(passed=2)
    # Without the plugin, in a process of its own started by this guarded test: the child
    # follows the guard of the test that started it (fail closed: it cannot opt out by leaving
    # hookproof out), and its refusals come home to this test.
    with hookproof_guard.expect_blocked():
        pytester.runpytest_subprocess("-p", "no:hookproof").assert_outcomes(failed=2)


@pytest.mark.slow
def test_plugin_load_imports_no_heavy_module(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)  # under CI the plugin selects the ci profile
    monkeypatch.delenv("HYPOTHESIS_PROFILE", raising=False)
    pytester.makeconftest(
        "import sys\n"
        "def pytest_sessionfinish(session):\n"
        "    heavy = [m for m in ('syrupy', 'hypothesis', 'langchain', 'jinja2') "
        "if m in sys.modules]\n"
        "    print('HEAVY', heavy)\n"
    )
    pytester.makepyfile("def test_plain():\n    assert True\n")
    # In a process of its own: this one has imported them already.
    result = pytester.runpytest_subprocess("-s", "-p", "no:syrupy", "-p", "no:hypothesispytest")
    result.stdout.fnmatch_lines(["*HEAVY []"])


def test_marker_can_set_the_default_snapshot_dir_over_the_ini(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nhookproof_snapshot_dir = snaps\n")
    pytester.makepyfile(
        """
import pytest
from hookproof.runtime import create_agent

@pytest.mark.hookproof(script=["ok"], snapshot_dir="snapshots")
def test_one(recording_model, hookproof_snapshot):
    create_agent(recording_model).invoke({"messages": [("user", "x")]})
    assert recording_model.last == hookproof_snapshot
"""
    )
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    assert (pytester.path / "snapshots").is_dir()
    assert not (pytester.path / "snaps").exists()
