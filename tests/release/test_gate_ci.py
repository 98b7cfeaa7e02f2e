"""``python -m hookproof.gate.ci``: the step the CI recipes run. It gates, posts the markdown
report as one comment per pull (GitHub) or merge (GitLab) request, edited in place on the
next run, and exits with the gate's verdict; against loopback servers that speak each API."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hookproof.gate.ci import MARKER, comment_body, run
from tests.release.forge import ForgeServer

REPO = Path(__file__).resolve().parents[2]
SNAPSHOT = (
    REPO / "snapshots/contracts/test_eino_lifecycle/test_eino_final_request_per_role[admin].txt"
)


def _sides(tmp_path: Path, *, candidate_text: str | None = None) -> tuple[str, str]:
    baseline, candidate = tmp_path / "baseline", tmp_path / "candidate"
    for side in (baseline, candidate):
        (side / "suite").mkdir(parents=True)
        shutil.copy(SNAPSHOT, side / "suite/admin.txt")
    if candidate_text is not None:
        (candidate / "suite/admin.txt").write_text(candidate_text, encoding="utf-8")
    return str(baseline), str(candidate)


def _breaking(tmp_path: Path) -> tuple[str, str]:
    """The candidate lost a tool the baseline's request offered: BREAKING."""
    text = SNAPSHOT.read_text(encoding="utf-8")
    start = text.index("  public_search\n")
    end = text.index("\n  ", text.index("    parameters:", start) + 20)
    while text[end + 3] == " ":
        end = text.index("\n  ", end + 1)
    edited = text[:start] + text[end + 1 :]
    edited = edited.replace("tools: 3", "tools: 2")
    return _sides(tmp_path, candidate_text=edited)


def _github_env(server: ForgeServer, tmp_path: Path) -> dict[str, str]:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7}}), encoding="utf-8")
    return {
        "GITHUB_TOKEN": "gh-token",
        "GITHUB_REPOSITORY": "acme/app",
        "GITHUB_API_URL": f"http://127.0.0.1:{server.server_port}",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
    }


def _gitlab_env(server: ForgeServer) -> dict[str, str]:
    return {
        "GITLAB_TOKEN": "gl-token",
        "CI_API_V4_URL": f"http://127.0.0.1:{server.server_port}/api/v4",
        "CI_PROJECT_ID": "42",
        "CI_MERGE_REQUEST_IID": "5",
    }


def test_github_breaking_change_fails_and_is_commented_once_then_edited(
    forge: ForgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline, candidate = _breaking(tmp_path)
    env = _github_env(forge, tmp_path)
    forge.comments.append({"id": 1, "body": "LGTM"})

    assert run([baseline, candidate, "--post", "github"], env) == 1
    assert run([baseline, candidate, "--post", "github"], env) == 1

    ours = [c for c in forge.comments if MARKER in c["body"]]
    assert len(ours) == 1
    assert "BREAKING" in ours[0]["body"]
    assert ours[0]["body"].startswith(MARKER + "\n")
    assert forge.comments[0] == {"id": 1, "body": "LGTM"}
    methods = [(method, path) for method, path, _ in forge.calls if method != "GET"]
    assert methods == [
        ("POST", "/repos/acme/app/issues/7/comments"),
        ("PATCH", f"/repos/acme/app/issues/comments/{ours[0]['id']}"),
    ]
    assert {auth for *_, auth in forge.calls} == {"Bearer gh-token"}
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert summary.count("BREAKING") >= 2
    out = capsys.readouterr().out
    assert "the report comment was created on GitHub" in out
    assert "gh-token" not in out


def test_gitlab_unchanged_snapshots_pass_and_the_note_says_so(
    forge: ForgeServer, tmp_path: Path
) -> None:
    baseline, candidate = _sides(tmp_path)
    output = tmp_path / "report.md"

    argv = [baseline, candidate, "--post", "gitlab", "-o", str(output)]
    assert run(argv, _gitlab_env(forge)) == 0

    assert [(m, p) for m, p, _ in forge.calls if m != "GET"] == [
        ("POST", "/api/v4/projects/42/merge_requests/5/notes")
    ]
    assert forge.calls[0][2] == "gl-token"
    assert forge.comments[0]["body"] == comment_body(output.read_text(encoding="utf-8")[:-1])
    assert "passed" in forge.comments[0]["body"].lower()


def test_gitlab_edits_its_note_found_on_a_later_page(forge: ForgeServer, tmp_path: Path) -> None:
    forge.comments.extend({"id": n, "body": f"note {n}"} for n in range(150))
    forge.comments[120]["body"] = f"{MARKER}\nold report"
    baseline, candidate = _sides(tmp_path)

    assert run([baseline, candidate, "--post", "gitlab"], _gitlab_env(forge)) == 0

    assert forge.calls[-1][:2] == ("PUT", "/api/v4/projects/42/merge_requests/5/notes/120")
    assert "old report" not in forge.comments[120]["body"]
    assert len(forge.comments) == 150


def test_a_comment_that_cannot_be_posted_fails_the_step_even_when_the_gate_passes(
    forge: ForgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    forge.fail_with = 403
    baseline, candidate = _sides(tmp_path)

    assert run([baseline, candidate, "--post", "github"], _github_env(forge, tmp_path)) == 2

    err = capsys.readouterr().err
    assert "could not post the gate's report on GitHub: GET answered 403" in err
    assert "pull-requests: write" in err


@pytest.mark.parametrize(
    ("platform", "missing", "says"),
    [
        ("github", "GITHUB_TOKEN", "secrets.GITHUB_TOKEN"),
        ("gitlab", "GITLAB_TOKEN", "api scope"),
        ("gitlab", "CI_MERGE_REQUEST_IID", "merge request pipelines"),
    ],
)
def test_a_missing_variable_is_named_before_the_gate_runs(
    forge: ForgeServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    platform: str,
    missing: str,
    says: str,
) -> None:
    env = _github_env(forge, tmp_path) if platform == "github" else _gitlab_env(forge)
    del env[missing]
    baseline, candidate = _sides(tmp_path)

    assert run([baseline, candidate, "--post", platform], env) == 2

    err = capsys.readouterr().err
    assert f"{missing} is not set" in err
    assert says in err
    assert forge.calls == []


def test_a_push_event_has_no_pull_request_to_comment_on(
    forge: ForgeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = _github_env(forge, tmp_path)
    Path(env["GITHUB_EVENT_PATH"]).write_text(json.dumps({"ref": "refs/heads/main"}))
    baseline, candidate = _sides(tmp_path)

    assert run([baseline, candidate, "--post", "github"], env) == 2

    assert "is not a pull request's" in capsys.readouterr().err


def test_bad_input_exits_2_with_the_gates_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline, candidate = _sides(tmp_path)
    Path(candidate, "suite/admin.txt").write_text("not a snapshot\n", encoding="utf-8")

    assert run([baseline, candidate], {}) == 2

    assert "admin.txt" in capsys.readouterr().err


def test_the_report_stays_within_a_pull_request_comment() -> None:
    from hookproof.gate._markdown import PR_COMMENT_LIMIT

    assert len(comment_body("x" * (PR_COMMENT_LIMIT - len(comment_body(""))))) == PR_COMMENT_LIMIT


def test_runs_as_a_module(tmp_path: Path) -> None:
    baseline, candidate = _breaking(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "hookproof.gate.ci", baseline, candidate, "--fail-on", "none"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "BREAKING" in done.stdout
