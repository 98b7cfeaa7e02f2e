"""The CI recipes a user copies (examples/downstream: a GitHub Actions workflow and a GitLab CI
file), the composite action they use (.github/actions/hookproof-gate) and hookproof's own
workflow: each valid against the schema its platform publishes (check-jsonschema's vendored
copies, offline), and the gate jobs run here as the platforms run them, step by step, on the
downstream project: an upgrade that shows guests the refund tool fails the job and is reported
in one comment; an upgrade that changes nothing passes."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, NoReturn

import pytest

import hookproof
from hookproof.cli.check import suite_environment
from hookproof.gate.ci import MARKER
from tests.release.forge import ForgeServer

REPO = Path(__file__).resolve().parents[2]
DOWNSTREAM = REPO / "examples/downstream"
WORKFLOW = DOWNSTREAM / ".github/workflows/hookproof.yml"
GITLAB = DOWNSTREAM / ".gitlab-ci.yml"
ACTION = REPO / ".github/actions/hookproof-gate/action.yml"
OWN_WORKFLOW = REPO / ".github/workflows/ci.yml"
INSTALL = "python -m pip install -e '.[test]'"
SCHEMAS = {
    WORKFLOW: "vendor.github-workflows",
    OWN_WORKFLOW: "vendor.github-workflows",
    ACTION: "vendor.github-actions",
    GITLAB: "vendor.gitlab-ci",
}


def _check_jsonschema() -> list[str]:
    found = shutil.which("check-jsonschema")
    if found:
        return [found]
    if importlib.util.find_spec("check_jsonschema") is not None:
        return [sys.executable, "-m", "check_jsonschema"]
    return _missing("check-jsonschema", "validate the recipes against their schemas")


def _missing(tool: str, purpose: str) -> NoReturn:
    """Outside CI a release tool's absence skips (the README's `[test]` install has none);
    under CI=true it fails, since CI installs the release extra to test the recipes."""
    message = f"{tool} is not installed (pip install 'hookproof[release]')"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}: CI must {purpose}")
    pytest.skip(message)


def _validate(path: Path, schema: str) -> subprocess.CompletedProcess[str]:
    command = [*_check_jsonschema(), "--builtin-schema", schema, str(path)]
    return subprocess.run(command, capture_output=True, text=True, check=False)


@pytest.mark.parametrize("path", list(SCHEMAS), ids=lambda path: path.relative_to(REPO).as_posix())
def test_each_recipe_is_valid_against_its_platforms_schema(path: Path) -> None:
    done = _validate(path, SCHEMAS[path])
    assert done.returncode == 0, done.stdout + done.stderr


BROKEN = {
    WORKFLOW: ("runs-on: ubuntu-latest", "runs_on: ubuntu-latest"),
    OWN_WORKFLOW: ("pull_request:", "pull_request: {branch: main}"),
    ACTION: ("using: composite", "using: compose"),
    GITLAB: ("when: always", "when: sometimes"),
}


@pytest.mark.parametrize("path", list(BROKEN), ids=lambda path: path.relative_to(REPO).as_posix())
def test_a_broken_copy_of_each_recipe_is_refused(path: Path, tmp_path: Path) -> None:
    old, new = BROKEN[path]
    text = path.read_text(encoding="utf-8")
    assert old in text
    broken = tmp_path / path.name
    broken.write_text(text.replace(old, new, 1), encoding="utf-8")

    assert _validate(broken, SCHEMAS[path]).returncode != 0


# -- the gate jobs, run step by step ---------------------------------------------------------


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _project(tmp_path: Path, *, upgrade_drops_the_filter: bool) -> tuple[Path, str]:
    """The downstream project on main (its reviewed snapshots committed) in a repository
    ``origin``, and a clone on a Renovate branch; its work tree and main's commit."""
    origin = tmp_path / "origin"
    shutil.copytree(DOWNSTREAM, origin, ignore=shutil.ignore_patterns("snapshots-*", "__pycache__"))
    _git(origin, "init", "-q", "-b", "main")
    _git(origin, "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    _git(origin, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "app")
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", origin.as_uri(), str(clone))
    _git(clone, "checkout", "-q", "-b", "renovate/upgrade")
    if upgrade_drops_the_filter:  # what an upgrade that stops running the middleware does
        agent = clone / "support_desk/agent.py"
        text = agent.read_text(encoding="utf-8")
        agent.write_text(text.replace("middleware=[RoleFilter()]", "middleware=[]"), "utf-8")
    return clone, _git(origin, "rev-parse", "HEAD")


def _environment(**extra: str) -> dict[str, str]:
    """The job's environment: ``python`` is this interpreter, hookproof this checkout's;
    ``-n auto`` runs in-process (0 workers): three small suites, each starting its own
    xdist workers, would cost a minute apiece on a shared machine and test nothing more. An
    xdist worker's own variables are left out (``suite_environment``)."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    source = str(Path(hookproof.__file__).resolve().parents[1])
    job = {"PATH": path, "PYTHONPATH": source, "CI": "true", "PYTEST_XDIST_AUTO_NUM_WORKERS": "0"}
    return {**suite_environment(os.environ), **job, **extra}


def _bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = ["bash", "-eo", "pipefail", "-c", script]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def _load(path: Path) -> Any:
    try:
        import yaml
    except ImportError:
        _missing("PyYAML", "read the recipes step by step")
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _run_gitlab_job(clone: Path, server: ForgeServer) -> subprocess.CompletedProcess[str]:
    job = _load(GITLAB)["hookproof-gate"]
    assert job["script"][0] == INSTALL  # the project is importable here without installing
    env = _environment(
        CI_MERGE_REQUEST_TARGET_BRANCH_NAME="main",
        GITLAB_TOKEN="gl-token",
        CI_API_V4_URL=f"http://127.0.0.1:{server.server_port}/api/v4",
        CI_PROJECT_ID="7",
        CI_MERGE_REQUEST_IID="3",
    )
    return _bash("\n".join(job["script"][1:]), clone, env)


@pytest.mark.slow
def test_gitlab_job_fails_a_security_upgrade_and_posts_one_note(
    forge: ForgeServer, tmp_path: Path
) -> None:
    clone, _ = _project(tmp_path, upgrade_drops_the_filter=True)

    done = _run_gitlab_job(clone, forge)

    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAILED tests/test_support_desk.py::test_guests_fail_closed" in done.stdout
    [note] = forge.comments
    assert note["body"].startswith(MARKER)
    assert "SECURITY</b> tool refund: now visible to the model" in note["body"]
    assert (clone / "gate.md").read_text(encoding="utf-8") in note["body"] + "\n"


@pytest.mark.slow
def test_gitlab_job_passes_an_upgrade_that_changes_nothing(
    forge: ForgeServer, tmp_path: Path
) -> None:
    clone, _ = _project(tmp_path, upgrade_drops_the_filter=False)

    done = _run_gitlab_job(clone, forge)

    assert done.returncode == 0, done.stdout + done.stderr
    [note] = forge.comments
    assert "PASSED" in note["body"]
    assert "2 snapshots, 2 unchanged" in note["body"]


# What the composite action's ${{ }} expressions are when GitHub runs it with the workflow's
# inputs; an expression not listed here fails the test rather than being guessed.
def _expressions(inputs: dict[str, str], temp: Path) -> dict[str, str]:
    return {
        "inputs.python": "python",
        "inputs.baseline": inputs["baseline"],
        "inputs.candidate": inputs["candidate"],
        "inputs.fail-on": inputs.get("fail-on", "breaking,security"),
        "inputs.comment == 'true' && 'github' || 'none'": "github",
        "inputs.token": "gh-token",
        "runner.temp": str(temp),
    }


def _action_step(inputs: dict[str, str], temp: Path) -> tuple[str, dict[str, str]]:
    [step] = _load(ACTION)["runs"]["steps"]
    values = _expressions(inputs, temp)

    def evaluate(text: str) -> str:
        return re.sub(r"\$\{\{\s*(.*?)\s*\}\}", lambda m: values[m.group(1)], text)

    return step["run"], {name: evaluate(str(value)) for name, value in step["env"].items()}


def _run_github_job(clone: Path, base: str, server: ForgeServer, tmp_path: Path) -> int:
    """The gate job's steps in order, the checkouts done with git as actions/checkout does
    them; the exit code the job ends with (a failed step fails it, the action runs anyway)."""
    steps = _load(WORKFLOW)["jobs"]["gate"]["steps"]
    kinds = [step.get("uses", "run").split("@")[0] for step in steps]
    assert kinds[:3] == ["actions/checkout", "actions/checkout", "actions/setup-python"]
    assert steps[1]["with"] == {
        "ref": "${{ github.event.pull_request.base.sha }}",
        "path": "baseline",
        "sparse-checkout": "/snapshots/",
        "sparse-checkout-cone-mode": False,
    }
    (clone / "baseline").mkdir()
    archive = subprocess.run(["git", "archive", base, "snapshots"], cwd=clone, capture_output=True)
    subprocess.run(["tar", "-x", "-C", "baseline"], cwd=clone, input=archive.stdout, check=True)
    assert steps[3]["run"] == INSTALL
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 9}}), encoding="utf-8")
    github = {
        "GITHUB_API_URL": f"http://127.0.0.1:{server.server_port}",
        "GITHUB_REPOSITORY": "acme/support-desk",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
    }
    tests = _bash(steps[4]["run"], clone, _environment(**github))
    assert steps[5]["uses"].startswith("hookproof/hookproof/.github/actions/hookproof-gate@")
    assert steps[5]["if"] == "${{ !cancelled() }}"
    script, env = _action_step(steps[5]["with"], tmp_path)
    gate = _bash(script, clone, _environment(**github, **env))
    assert gate.returncode in (0, 1), gate.stdout + gate.stderr
    return tests.returncode or gate.returncode


@pytest.mark.slow
def test_github_job_fails_a_security_upgrade_and_comments_once(
    forge: ForgeServer, tmp_path: Path
) -> None:
    clone, base = _project(tmp_path, upgrade_drops_the_filter=True)

    assert _run_github_job(clone, base, forge, tmp_path) == 1

    [comment] = forge.comments
    assert "SECURITY</b> tool refund: now visible to the model" in comment["body"]
    assert {auth for *_, auth in forge.calls} == {"Bearer gh-token"}
    assert forge.calls[-1][:2] == ("POST", "/repos/acme/support-desk/issues/9/comments")
    report = (tmp_path / "hookproof-gate.md").read_text(encoding="utf-8")
    assert comment["body"] == f"{MARKER}\n{report[:-1]}"
    assert report in (tmp_path / "summary.md").read_text(encoding="utf-8")


def test_the_gate_job_runs_on_dependency_upgrades_only() -> None:
    condition = _load(WORKFLOW)["jobs"]["gate"]["if"]
    for branch_or_label in ("'dependabot/'", "'renovate/'", "'dependencies'"):
        assert branch_or_label in condition
    rules = " ".join(rule["if"] for rule in _load(GITLAB)["hookproof-gate"]["rules"])
    assert 'merge_request_event"' in rules
    for branch_or_label in ("renovate|dependabot", "dependencies"):
        assert branch_or_label in rules


def test_both_recipes_run_the_suite_with_xdist() -> None:
    assert _load(WORKFLOW)["jobs"]["test"]["steps"][-1]["run"] == "python -m pytest -n auto"
    assert _load(GITLAB)["test"]["script"] == [INSTALL, "python -m pytest -n auto"]
