"""Posting the gate's report on a pull request (GitHub) or merge request (GitLab), standard
library only: one comment per request, found again by its marker and edited in place, so a
pull request updated ten times carries one report, not ten."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hookproof.errors import HookproofError, InvalidInputError

__all__ = ["MARKER", "CommentTarget", "github_target", "gitlab_target", "upsert_comment"]

MARKER = "<!-- hookproof-gate -->"
_PAGE_SIZE = 100
_MAX_PAGES = 50  # 5,000 comments: past that a pull request is not one a person reviews
_TIMEOUT_SECONDS = 30


@dataclass(frozen=True)
class CommentTarget:
    """Where comments of one pull or merge request are listed, created and edited."""

    platform: str
    list_url: str
    create_url: str
    edit_url: str  # with ``{id}``
    edit_method: str
    headers: Mapping[str, str]


def _required(environ: Mapping[str, str], name: str, why: str) -> str:
    value = environ.get(name, "").strip()
    if not value:
        raise InvalidInputError(
            f"hookproof: cannot post the gate's report: {name} is not set ({why}). Run this "
            "step in the CI job the recipe shows, or pass --post none to skip the comment."
        )
    return value


def _pull_request_number(environ: Mapping[str, str]) -> str:
    """The pull request's number, from the event GitHub describes the run with."""
    path = _required(environ, "GITHUB_EVENT_PATH", "GitHub Actions sets it in every job")
    try:
        with open(path, encoding="utf-8") as file:
            event = json.load(file)
        number = event["pull_request"]["number"]
    except (OSError, ValueError, KeyError, TypeError):
        number = None
    if type(number) is not int:
        raise InvalidInputError(
            f"hookproof: cannot post the gate's report: the event at {path} is not a pull "
            "request's, so there is nothing to comment on. Run the gate job on "
            "`pull_request` events only (the recipe's `if:`), or pass --post none."
        )
    return str(number)


def github_target(environ: Mapping[str, str]) -> CommentTarget:
    """The pull request this GitHub Actions job runs for, from its environment."""
    token = _required(environ, "GITHUB_TOKEN", "pass `secrets.GITHUB_TOKEN` as env")
    repository = _required(environ, "GITHUB_REPOSITORY", "GitHub Actions sets it")
    api = environ.get("GITHUB_API_URL", "").rstrip("/") or "https://api.github.com"
    issue = f"{api}/repos/{repository}/issues"
    comments = f"{issue}/{_pull_request_number(environ)}/comments"
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json"}
    return CommentTarget("GitHub", comments, comments, f"{issue}/comments/{{id}}", "PATCH", headers)


def gitlab_target(environ: Mapping[str, str]) -> CommentTarget:
    """The merge request this GitLab CI job runs for, from its environment."""
    token = _required(environ, "GITLAB_TOKEN", "a masked CI/CD variable: a token with api scope")
    api = _required(environ, "CI_API_V4_URL", "GitLab CI sets it").rstrip("/")
    project = urllib.parse.quote(_required(environ, "CI_PROJECT_ID", "GitLab CI sets it"), "")
    request = _required(
        environ, "CI_MERGE_REQUEST_IID", "set in merge request pipelines only: run the job there"
    )
    notes = f"{api}/projects/{project}/merge_requests/{request}/notes"
    return CommentTarget("GitLab", notes, notes, f"{notes}/{{id}}", "PUT", {"PRIVATE-TOKEN": token})


def _call(target: CommentTarget, method: str, url: str, body: str | None = None) -> Any:
    data = None if body is None else json.dumps({"body": body}).encode("utf-8")
    headers = {**target.headers, "Content-Type": "application/json", "User-Agent": "hookproof"}
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=_TIMEOUT_SECONDS) as response:
            return json.loads(response.read().decode("utf-8") or "null")
    except urllib.error.HTTPError as error:
        problem = f"{method} answered {error.code} {error.reason}"
    except (urllib.error.URLError, OSError, ValueError) as error:
        problem = f"{method} failed: {error}"
    raise HookproofError(
        f"hookproof: could not post the gate's report on {target.platform}: {problem}. The "
        "report is in the job's log; give the job's token permission to write comments "
        "(GitHub: `pull-requests: write`; GitLab: a GITLAB_TOKEN with api scope)."
    )


def _existing_comment(target: CommentTarget) -> Any:
    """The id of the last comment that carries the marker, or None."""
    found = None
    for page in range(1, _MAX_PAGES + 1):
        url = f"{target.list_url}?per_page={_PAGE_SIZE}&page={page}"
        comments = _call(target, "GET", url)
        if not isinstance(comments, list):
            break
        for comment in comments:
            if isinstance(comment, dict) and MARKER in str(comment.get("body", "")):
                found = comment.get("id")
        if len(comments) < _PAGE_SIZE:
            break
    return found


def upsert_comment(target: CommentTarget, body: str) -> str:
    """Edit the request's hookproof comment to ``body``, or create it; "edited" or "created"."""
    existing = _existing_comment(target)
    if existing is None:
        _call(target, "POST", target.create_url, body)
        return "created"
    _call(target, target.edit_method, target.edit_url.format(id=existing), body)
    return "edited"
