"""``hookproof conformance``: a matrix of framework semantics per installed target."""

from __future__ import annotations

import importlib.util
import json

import pytest

from hookproof.cli import main
from hookproof.conformance import PROBES, run_conformance


def _by_probe(target: str) -> dict[str, tuple[str, str]]:
    return {
        r.probe: (r.status, r.observed) for r in run_conformance([target]) if r.target == target
    }


def test_reference_is_the_baseline() -> None:
    results = _by_probe("reference")
    assert set(results) == set(PROBES)
    assert results["onion_order"] == ("baseline", "A> B> <B <A")
    assert results["after_hooks_reversed"] == ("baseline", "B,A")
    assert results["override_depth"][1] == "deep (in-place change refused)"
    assert results["sync_wrap_under_ainvoke"][1] == "ok"
    assert results["schema_only_tool"][1].startswith("raises UnexecutableToolError")


@pytest.mark.skipif(importlib.util.find_spec("langchain") is None, reason="langchain not installed")
def test_langchain_differences_are_reported_not_failed() -> None:
    results = _by_probe("langchain")
    assert results["onion_order"][0] == "holds"
    assert results["unknown_tool_message"][0] == "holds"
    assert results["override_depth"] == ("differs", "shallow (original changed)")
    assert results["sync_wrap_under_ainvoke"][0] == "differs"


def test_cli_formats_and_missing_targets(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from hookproof import conformance

    assert main(["conformance", "--target", "reference"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].split() == ["semantic", "target", "status", "observed"]
    monkeypatch.setattr(conformance, "targets", lambda: ["reference"])
    assert main(["conformance", "--target", "deepagents", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {(row["status"], row["observed"]) for row in data} == {("n/a", "not installed")}
    assert len(data) == len(PROBES)


@pytest.mark.skipif(
    importlib.util.find_spec("deepagents") is None, reason="deepagents not installed"
)
def test_deepagents_keeps_the_articles_profile_semantics() -> None:
    results = _by_probe("deepagents")
    assert results["profile_exclusion_after_user_middleware"] == ("holds", "excluded")
    assert results["profile_resolved_at_build"] == ("holds", "at build ([FIRST] kept)")
    assert results["unknown_tool_message"][0] == "holds"


def test_langchain_has_no_harness_probes() -> None:
    if importlib.util.find_spec("langchain") is None:
        pytest.skip("langchain not installed")
    results = _by_probe("langchain")
    assert results["profile_resolved_at_build"] == ("n/a", "does not apply to this target")
