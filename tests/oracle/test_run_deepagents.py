"""The deepagents oracle's own logic: where its tests come from, which version they are, how
the two runs are started, and its reviewed list.

The runner itself (python -m tests.oracle.run_deepagents) needs a deepagents checkout, which
CI cannot reach; these tests keep what it does around the runs honest.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.oracle import comparison, run_deepagents, two_runs
from tests.oracle.sources import OracleError

PYPROJECT = '[project]\nname = "deepagents"\nversion = "{}"\n'


def _package(at: Path, version: str = "9.9.9") -> Path:
    """A directory laid out as deepagents' package directory (libs/deepagents)."""
    (at / "tests" / "unit_tests" / "__pycache__").mkdir(parents=True)
    (at / "tests" / "unit_tests" / "test_a.py").write_text("def test_a(): ...\n")
    (at / "tests" / "unit_tests" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    (at / "deepagents").mkdir()
    (at / "deepagents" / "graph.py").write_text("# the package itself: never copied\n")
    (at / "pyproject.toml").write_text(PYPROJECT.format(version))
    return at


def _options(**given: object) -> argparse.Namespace:
    return run_deepagents._parser().parse_args(
        [f"--{k}={v}" for k, v in given.items() if v is not None]
    )


def test_without_a_source_it_says_where_tests_come_from(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_deepagents.main([]) == 2
    said = capsys.readouterr().err
    assert "--checkout PATH" in said and "--mirror GIT_DIR" in said
    assert "CI cannot reach its repository" in said


@pytest.mark.parametrize("layout", ["repository root", "package directory"])
def test_a_checkout_gives_its_tests_and_pyproject_only(tmp_path: Path, layout: str) -> None:
    checkout = tmp_path / "checkout"
    package = checkout / "libs" / "deepagents" if layout == "repository root" else checkout
    _package(package)
    root = tmp_path / "run" / "deepagents"
    run_deepagents.copy_tests(_options(checkout=checkout), "9.9.9", root)
    copied = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    assert copied == ["pyproject.toml", "tests/unit_tests/test_a.py"]


def test_a_directory_that_is_not_deepagents_is_refused(tmp_path: Path) -> None:
    (tmp_path / "tests" / "unit_tests").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "other"\nversion = "1"\n')
    with pytest.raises(OracleError, match="is not a deepagents checkout"):
        run_deepagents.package_dir(tmp_path)


def test_tests_of_another_version_are_refused_naming_both(tmp_path: Path) -> None:
    _package(tmp_path / "checkout", version="0.1.0")
    with pytest.raises(OracleError, match=r"deepagents 0\.1\.0's, but deepagents 9\.9\.9"):
        run_deepagents.copy_tests(
            _options(checkout=tmp_path / "checkout"), "9.9.9", tmp_path / "run" / "deepagents"
        )


def test_checkout_and_mirror_together_are_refused(tmp_path: Path) -> None:
    with pytest.raises(OracleError, match="not both"):
        run_deepagents.copy_tests(
            _options(checkout=tmp_path, mirror=tmp_path), "9.9.9", tmp_path / "run"
        )


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_mirror_gives_the_tests_of_the_installed_versions_tag(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    package = _package(clone / "libs" / "deepagents")
    shutil.rmtree(package / "tests" / "unit_tests" / "__pycache__")  # a clone has none
    _git("init", "-q", cwd=clone)
    _git("add", "libs", cwd=clone)
    _git("commit", "-q", "-m", "v", cwd=clone)
    _git("tag", "deepagents==9.9.9", cwd=clone)
    root = tmp_path / "run" / "deepagents"
    run_deepagents.copy_tests(_options(mirror=clone / ".git"), "9.9.9", root)
    copied = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    assert copied == ["pyproject.toml", "tests/unit_tests/test_a.py"]
    with pytest.raises(OracleError, match="could not read"):
        run_deepagents.copy_tests(
            _options(mirror=clone / ".git", tag="deepagents==0.0.1"), "9.9.9", tmp_path / "r2"
        )


def test_only_the_reference_run_swaps_and_sweeps_the_suites_packages(tmp_path: Path) -> None:
    suite = run_deepagents.SUITE
    report = tmp_path / "r.json"
    baseline = two_runs.pytest_command(suite, "langchain", report, 0)
    reference = two_runs.pytest_command(suite, "reference", report, 2)
    assert "oracle_swap_plugin" not in baseline
    assert not any(arg.startswith("--hookproof-oracle-swap-in") for arg in baseline)
    assert "--hookproof-oracle-swap-in=deepagents" in reference
    assert reference[reference.index("-n") + 1] == "2"
    assert f"--hookproof-oracle-report={report}" in baseline
    assert baseline[3:4] == ["tests/unit_tests"]


def test_the_reviewed_list_is_for_a_deepagents_version_and_names_its_file() -> None:
    listed = run_deepagents.read_differences()
    assert listed.file_name == "deepagents_differences.toml"
    assert listed.version == "0.7.8"  # the newest tag deepagents' stored repository holds
    assert listed.on_reference, "the list of differences is empty: it cannot have been measured"


def test_a_list_without_its_projects_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deepagents_differences.toml"
    path.write_text('format = 1\nlangchain = "1.5.2"\n')
    with pytest.raises(OracleError, match='Add deepagents = "<version>"'):
        run_deepagents.read_differences(path)


def test_the_verdict_names_the_suites_list() -> None:
    report = {
        "format": 1,
        "exitstatus": 1,
        "collected": 1,
        "collection_errors": [],
        "tests": {"t::a": {"outcome": "passed", "built_agent": True}},
    }
    failed = {**report, "tests": {"t::a": {"outcome": "failed", "built_agent": True}}}
    listed = comparison.Differences("9.9.9", {}, {}, "deepagents_differences.toml")
    verdict = comparison.compare(report, failed, listed)
    assert "not in deepagents_differences.toml" in verdict.problems[0]


def test_reports_are_kept_by_engine_when_asked(tmp_path: Path) -> None:
    reports = {"langchain": {"format": 1}, "reference": {"format": 1, "tests": {}}}
    two_runs.keep_reports(reports, tmp_path / "kept")
    kept = {p.name: json.loads(p.read_text()) for p in (tmp_path / "kept").iterdir()}
    assert kept == {"langchain.json": reports["langchain"], "reference.json": reports["reference"]}


def test_a_run_started_under_a_lower_memory_limit_keeps_that_limit() -> None:
    """A caller that already bounds memory (``ulimit -v``) must not see the run die in its
    child before pytest starts because the runner tried to raise the limit."""
    lower = two_runs.RUN_MEMORY_BYTES // 2
    code = (
        "import resource; from tests.oracle import two_runs; two_runs._bounded_memory(); "
        "print(resource.getrlimit(resource.RLIMIT_AS)[1])"
    )

    def lower_limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (lower, lower))

    done = subprocess.run(
        [sys.executable, "-c", code],
        preexec_fn=lower_limit,
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[2],
    )
    assert int(done.stdout) == lower
