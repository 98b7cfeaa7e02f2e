"""Provenance: which middleware or harness layer registered, added, changed or removed each
tool and wrote each system-prompt line, from the run itself, into snapshots and the gate."""

from __future__ import annotations

import asyncio
import copy
import json
import pickle
from pathlib import Path
from typing import Any, ClassVar

import pytest

from hookproof.errors import SnapshotFormatError
from hookproof.gate import compare_directories, format_json, format_markdown, format_text
from hookproof.gate import format_html as render_html
from hookproof.harness import HarnessProfile, ProfileRegistry, create_deep_agent
from hookproof.models import FinalRequest, RecordingModel, ScriptedModel, call
from hookproof.provenance import AGENT, Provenance, ToolOrigin
from hookproof.runtime import AgentMiddleware, create_agent
from hookproof.snapshot import diff, parse, render
from hookproof.snapshot._render import without_provenance
from hookproof.tools import tool
from tests.helpers import registry_of


@tool
def search(q: str) -> str:
    """Search the docs."""
    return q


@tool
def delete(path: str) -> str:
    """Delete a file."""
    return path


@tool
def export(path: str) -> str:
    """Export a report."""
    return path


class Files(AgentMiddleware):
    """Registers ``delete`` and adds a prompt section."""

    tools: ClassVar[list[Any]] = [delete]

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        prompt = request.system_prompt + "\n\n## Files\nYou may delete files."
        return handler(request.override(system_prompt=prompt))


class HideSearch(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        kept = [item for item in request.tools if item.name != "search"]
        return handler(request.override(tools=kept))


class AddExport(AgentMiddleware):
    """Shows ``export`` at run time (and would run it: a tool layer)."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request.override(tools=[*request.tools, export]))

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        return handler(request)


class Reword(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        changed = [
            item.schema.model_copy(update={"description": "Remove a file for good."})
            if item.name == "delete"
            else item
            for item in request.tools
        ]
        return handler(request.override(tools=changed))


PROMPT = "You help.\nBe brief."


def _final(*middleware: object, script: Any = ("done",)) -> FinalRequest:
    model = RecordingModel(ScriptedModel(list(script)))
    agent = create_agent(model, tools=[search], middleware=list(middleware), system_prompt=PROMPT)
    agent.invoke({"messages": [("user", "hi")]})
    return model.last


def _histories(final: FinalRequest) -> dict[str, str]:
    assert final.provenance is not None
    return {item.name: item.describe() for item in final.provenance.tools}


# -- what the engine records ----------------------------------------------------------------


def test_each_tool_says_who_registered_added_changed_or_removed_it() -> None:
    final = _final(Files(), HideSearch(), AddExport(), Reword())
    assert _histories(final) == {
        "delete": "registered by Files; description changed by Reword",
        "export": "added by AddExport",
        "search": "registered by agent; removed by HideSearch",
    }
    assert final.provenance is not None
    assert {item.name: item.visible for item in final.provenance.tools} == {
        "delete": True,
        "export": True,
        "search": False,
    }


def test_each_system_line_says_which_layer_wrote_it() -> None:
    final = _final(Files())
    assert final.system_text.split("\n") == [
        "You help.",
        "Be brief.",
        "",
        "## Files",
        "You may delete files.",
    ]
    assert final.provenance is not None
    assert final.provenance.system == (AGENT, AGENT, "Files", "Files", "Files")
    sections = [(s.first, s.last, s.origin) for s in final.provenance.sections]
    assert sections == [(1, 2, AGENT), (3, 5, "Files")]


def test_a_layer_that_passes_the_request_on_unchanged_is_not_an_origin() -> None:
    class Passes(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

    assert _histories(_final(Passes())) == {"search": "registered by agent"}


def test_a_change_made_for_one_call_does_not_leak_into_the_next() -> None:
    class FirstCallOnly(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            if len(request.messages) == 1:
                return handler(request.override(tools=[]))
            return handler(request)

    model = RecordingModel(ScriptedModel([call("search", {"q": "x"}), "done"]))
    agent = create_agent(model, tools=[search], middleware=[FirstCallOnly()])
    agent.invoke({"messages": [("user", "hi")]})
    first, second = model.requests
    assert _histories(first) == {"search": "registered by agent; removed by FirstCallOnly"}
    assert _histories(second) == {"search": "registered by agent"}


def test_a_retrying_layer_is_noted_once_per_attempt() -> None:
    class Retry(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            try:
                return handler(request.override(tools=[]))
            except RuntimeError:
                return handler(request)

    class FailFirst(AgentMiddleware):
        calls = 0

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            FailFirst.calls += 1
            if FailFirst.calls == 1:
                raise RuntimeError("first attempt fails")
            return handler(request)

    model = RecordingModel(ScriptedModel(["done"]))
    agent = create_agent(model, tools=[search], middleware=[Retry(), FailFirst()])
    agent.invoke({"messages": [("user", "hi")]})
    assert _histories(model.last) == {"search": "registered by agent"}


def test_ainvoke_records_the_same_provenance_as_invoke() -> None:
    middleware = [Files(), HideSearch(), AddExport(), Reword()]
    model = RecordingModel(ScriptedModel(["done"]))
    agent = create_agent(model, tools=[search], middleware=middleware, system_prompt=PROMPT)
    asyncio.run(agent.ainvoke({"messages": [("user", "hi")]}))
    assert model.last.provenance == _final(*middleware).provenance


def test_provenance_is_outside_equality_and_survives_copies_and_pickles() -> None:
    final = _final(Files(), HideSearch())
    bare = final.model_copy(update={"model": final.model})  # validated anew: no provenance
    assert bare.provenance is None
    assert final == bare and hash(final) == hash(bare)
    for copied in (copy.deepcopy(final), pickle.loads(pickle.dumps(final))):
        assert copied == final
        assert copied.provenance == final.provenance


def test_with_provenance_attaches_one_to_a_hand_built_request() -> None:
    given = Provenance(tools=(ToolOrigin("search", ("registered by agent",)),))
    final = FinalRequest(model="m").with_provenance(given)
    assert final.provenance is given
    assert final.with_provenance(None).provenance is None


# -- harness layers -------------------------------------------------------------------------


def _deep_final(profiles: ProfileRegistry | None = None) -> FinalRequest:
    model = RecordingModel(ScriptedModel(["done"], provider="acme"))
    agent = create_deep_agent(model, system_prompt="You research.", profiles=profiles)
    agent.invoke({"messages": [("user", "hi")]})
    return model.last


def test_the_harness_names_its_layers_apart_from_the_teams_prompt() -> None:
    final = _deep_final()
    assert final.provenance is not None
    origins = [section.origin for section in final.provenance.sections]
    assert origins[:2] == [AGENT, "harness (base prompt)"]
    assert {"TodoListMiddleware", "FilesystemMiddleware", "SubAgentMiddleware"} <= set(origins)
    histories = _histories(final)
    assert histories["read_file"] == "registered by FilesystemMiddleware"
    assert histories["task"] == "registered by SubAgentMiddleware"
    assert histories["write_todos"] == "registered by TodoListMiddleware"


def test_a_harness_profile_is_an_origin_of_its_own() -> None:
    profile = HarnessProfile(
        system_prompt_suffix="Answer in French.",
        excluded_tools=frozenset({"glob"}),
        tool_description_overrides={"ls": "List a directory."},
    )
    registry = registry_of(("acme", profile))
    final = _deep_final(registry)
    assert final.provenance is not None
    origins = [section.origin for section in final.provenance.sections]
    assert origins[:3] == [AGENT, "harness (base prompt)", "harness profile (system_prompt_suffix)"]
    histories = _histories(final)
    assert histories["glob"].endswith("removed by HarnessProfileToolExclusion")
    assert histories["ls"].endswith("description changed by HarnessProfileToolExclusion")


# -- the snapshot text ----------------------------------------------------------------------


def test_the_snapshot_ends_with_the_provenance_section() -> None:
    text = render(_final(Files(), HideSearch()))
    assert text.startswith("hookproof final request, format 2\n")
    assert text.endswith(
        "\nprovenance:\n"
        "  system 1-2: agent\n"
        "  system 3-5: Files\n"
        "  tool delete: registered by Files\n"
        "  tool search: registered by agent; removed by HideSearch\n"
    )


def test_parse_reads_the_provenance_back_exactly() -> None:
    text = render(_final(Files(), HideSearch(), AddExport(), Reword()))
    parsed = parse(text)
    assert parsed.provenance is not None
    assert parsed.provenance.tools["search"] == "registered by agent; removed by HideSearch"
    assert render(parsed) == text


def test_a_tool_name_with_spaces_is_quoted_in_provenance_too() -> None:
    final = FinalRequest(model="m").with_provenance(
        Provenance(tools=(ToolOrigin("odd: name", ("registered by agent",), False),))
    )
    text = render(final)
    assert '  tool "odd: name": registered by agent\n' in text
    assert render(parse(text)) == text


def test_without_provenance_a_request_renders_as_format_1() -> None:
    final = _final(Files())
    plain = render(final, provenance=False)
    assert plain.startswith("hookproof final request, format 1\n")
    assert "provenance:" not in plain
    assert without_provenance(render(final)) == plain
    assert render(final.model_copy(update={"model": final.model})) == plain


@pytest.mark.parametrize(
    ("section", "problem"),
    [
        ("  system 2-3: agent\n", "system FIRST-LAST"),
        ("  system 1: agent\n", "covers 1 system lines"),
        ("  sistem 1-3: agent\n", "system FIRST-LAST"),
        ('  tool "unclosed: agent\n', "badly quoted"),
        ("  tool search\n", "tool NAME: history"),
        (
            "  system 1-2: agent\n  tool search: registered by agent\n  tool search: added by X\n",
            "names tool search a second time",
        ),
    ],
)
def test_a_damaged_provenance_section_is_a_clear_format_error(section: str, problem: str) -> None:
    text = render(_final())
    head = text[: text.index("provenance:\n") + len("provenance:\n")]
    with pytest.raises(SnapshotFormatError, match=problem):
        parse(head + section)


def test_a_format_1_file_with_a_provenance_section_is_refused() -> None:
    text = render(_final()).replace("format 2", "format 1", 1)
    with pytest.raises(SnapshotFormatError, match="needs format 2"):
        parse(text)


# -- the gate names origins -------------------------------------------------------------------


def _gate(tmp_path: Path, old: FinalRequest, new: FinalRequest) -> Any:
    for side, final in (("old", old), ("new", new)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "case.txt").write_text(render(final), encoding="utf-8")
    return compare_directories(tmp_path / "old", tmp_path / "new")


def test_every_report_format_names_where_a_change_comes_from(tmp_path: Path) -> None:
    report = _gate(tmp_path, _final(HideSearch()), _final(Files()))
    rows = [
        "SECURITY tool delete: now visible to the model (registered by Files)",
        "SECURITY tool search: now visible to the model "
        "(registered by agent; no longer removed by HideSearch)",
        "REVIEW   system prompt: 3 lines added (from Files)",
    ]
    text = format_text(report)
    for row in rows:
        assert row in text
    markdown = format_markdown(report)
    assert "now visible to the model (registered by Files)" in markdown
    found = json.loads(format_json(report))
    origins = {c["origin"] for f in found["findings"] for c in f["changes"]}
    assert {"registered by Files", "from Files"} <= origins
    page = render_html(report)
    assert "now visible to the model (registered by Files)" in page


def test_a_removed_tool_names_the_layer_that_removed_it(tmp_path: Path) -> None:
    report = _gate(tmp_path, _final(), _final(HideSearch()))
    assert "BREAKING tool search: removed (registered by agent; removed by HideSearch)" in (
        format_text(report)
    )


def test_a_tool_gone_from_the_registry_says_where_it_had_come_from(tmp_path: Path) -> None:
    report = _gate(tmp_path, _final(Files()), _final())
    assert "BREAKING tool delete: removed (was registered by Files)" in format_text(report)


def test_a_change_of_origin_alone_is_cosmetic() -> None:
    class ExportTool(AgentMiddleware):
        tools: ClassVar[list[Any]] = [export]

    old = _final(AddExport())
    new = _final(ExportTool())
    assert render(old, provenance=False) == render(new, provenance=False)  # the model sees the same
    changes = diff(render(old), render(new)).changes
    assert [(c.kind.value, c.subject, c.what, c.before, c.after) for c in changes] == [
        (
            "COSMETIC",
            "provenance",
            "tool export added by AddExport, now registered by ExportTool",
            "added by AddExport",
            "registered by ExportTool",
        )
    ]


def test_a_format_1_baseline_gates_against_provenance_without_noise(tmp_path: Path) -> None:
    final = _final(Files())
    old = tmp_path / "old"
    old.mkdir()
    (old / "case.txt").write_text(render(final, provenance=False), encoding="utf-8")
    new = tmp_path / "new"
    new.mkdir()
    (new / "case.txt").write_text(render(final), encoding="utf-8")
    report = compare_directories(old, new)
    assert report.counts() == {"BREAKING": 0, "SECURITY": 0, "REVIEW": 0, "COSMETIC": 0}


# -- the Eino dialect ---------------------------------------------------------------------


def test_eino_state_rewrites_are_origins_too() -> None:
    from hookproof.eino import RunContext
    from hookproof.examples.eino_support import build_eino_support_agent

    model = RecordingModel(ScriptedModel(["done"]))
    agent = build_eino_support_agent(model)
    agent.run([("user", "hi")], ctx=RunContext().with_value("role", "analyst"))
    assert _histories(model.last) == {
        "internal_lookup": "registered by agent",
        "public_search": "registered by agent",
        "refund": "registered by agent; removed by RoleToolFilter",
    }


# -- what provenance does not touch ----------------------------------------------------------


def test_a_cassette_matches_requests_without_their_provenance() -> None:
    from hookproof.recording import Cassette

    final = _final(Files())
    cassette = Cassette(Path("unused.json"))
    assert cassette.request_text(final) == render(final, provenance=False)


def test_a_snapshot_reviewed_before_provenance_passes_and_an_update_adds_it(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini("[pytest]\nhookproof_snapshot_dir = snapshots\n")
    pytester.makepyfile(
        test_app="""
import pytest
from hookproof.runtime import create_agent

@pytest.mark.hookproof(script=["ok"])
def test_app(recording_model, hookproof_snapshot):
    create_agent(recording_model, system_prompt="Be brief.").invoke({"messages": [("user", "x")]})
    assert recording_model.last == hookproof_snapshot
"""
    )
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    path = next((pytester.path / "snapshots").rglob("*.txt"))
    written = path.read_text(encoding="utf-8")
    assert "\nprovenance:\n  system 1: agent\n" in written
    path.write_text(without_provenance(written), encoding="utf-8")  # as a format-1 file
    pytester.runpytest_inprocess().assert_outcomes(passed=1)
    assert "provenance:" not in path.read_text(encoding="utf-8")
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    assert path.read_text(encoding="utf-8") == written  # the update adds the provenance
    path.write_text(without_provenance(written), encoding="utf-8")
    reviewed = without_provenance(written).replace("Be brief.", "Be terse.")
    path.write_text(reviewed, encoding="utf-8")  # what the model sees still counts
    pytester.runpytest_inprocess().assert_outcomes(failed=1)


def test_an_eino_wrap_model_that_changes_the_call_is_its_origin() -> None:
    from hookproof.eino import BaseChatModelAgentMiddleware, ChatModelAgent, ModelWrapper
    from hookproof.messages import SystemMessage

    class Strict(ModelWrapper):
        def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
            system = SystemMessage(content=messages[0].text + "\nNever guess.")
            return self.inner.generate(ctx, [system, *messages[1:]], **options)

    class Rules(BaseChatModelAgentMiddleware):
        def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
            return Strict(model)

    model = RecordingModel(ScriptedModel(["done"]))
    agent = ChatModelAgent(model=model, instruction="Help.", tools=[search], handlers=[Rules()])
    agent.run([("user", "hi")])
    assert model.last.provenance is not None
    assert model.last.provenance.system == (AGENT, "Rules")
    assert _histories(model.last) == {"search": "registered by agent"}


def test_a_layer_doing_the_same_again_on_a_later_call_is_one_event() -> None:
    """Eino gives each model call of a run the run's tools afresh: a filter removes the same
    tool on every call, which is one origin, not several."""
    from hookproof.provenance import compute
    from hookproof.requests import ModelRequest

    full = ModelRequest(model=None, tools=[search, delete])
    filtered = full.override(tools=[delete])
    found = compute(full, [("Guest", full, filtered), ("Guest", full, filtered)], filtered, {})
    assert {item.name: item.describe() for item in found.tools} == {
        "delete": "registered by agent",
        "search": "registered by agent; removed by Guest",
    }
