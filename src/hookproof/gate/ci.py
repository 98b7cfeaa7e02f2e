"""The gate as a CI step: compare, post the markdown report on the pull or merge request,
exit with the gate's verdict.

``python -m hookproof.gate.ci BASELINE CANDIDATE --post github`` (or ``gitlab``, or ``none``)
is what the repository's GitHub Actions composite action (``.github/actions/hookproof-gate``)
and GitLab CI recipe run, so a workflow holds no shell logic of its own. It writes the
markdown report to ``--output`` and, under GitHub Actions, to the job summary; posts it as
one comment per request, edited in place on later runs (found by ``MARKER``); and exits 1
when a change of a failing class was found (``--fail-on``, default breaking,security), 0
otherwise, 2 on bad input or when the comment could not be posted (a gate that passed but
could not show its report does not pass silently).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from hookproof.errors import HookproofError
from hookproof.gate._comments import MARKER, github_target, gitlab_target, upsert_comment
from hookproof.gate._markdown import PR_COMMENT_LIMIT

__all__ = ["MARKER", "comment_body", "main", "run"]

_PLATFORMS = {"github": github_target, "gitlab": gitlab_target}


def comment_body(markdown: str) -> str:
    """The comment a pull or merge request gets: the marker that finds it again on the next
    run (an HTML comment: not shown), then the gate's markdown report."""
    return f"{MARKER}\n{markdown}"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m hookproof.gate.ci",
        description="Run the gate, post its markdown report on the pull or merge request, "
        "exit 1 on a failing change, 0 otherwise, 2 on bad input or a comment not posted.",
    )
    parser.add_argument("baseline", metavar="BASELINE_DIR")
    parser.add_argument("candidate", metavar="CANDIDATE_DIR")
    parser.add_argument("--fail-on", default="breaking,security")
    parser.add_argument("--post", choices=[*_PLATFORMS, "none"], default="none")
    parser.add_argument("-o", "--output", metavar="FILE", help="also write the report here")
    parser.add_argument("--allow-empty-baseline", action="store_true")
    return parser


def _gate(args: argparse.Namespace) -> tuple[str, int]:
    from hookproof.gate import compare_directories, format_markdown, parse_fail_on

    report = compare_directories(
        Path(args.baseline),
        Path(args.candidate),
        fail_on=parse_fail_on(args.fail_on),
        allow_empty_baseline=args.allow_empty_baseline,
    )
    markdown = format_markdown(report, limit=PR_COMMENT_LIMIT - len(comment_body("")))
    return markdown, report.exit_code


def _write(markdown: str, output: str | None, environ: Mapping[str, str]) -> None:
    from hookproof._support.safe_files import write_text

    if output:
        write_text(Path(output), markdown + "\n", make_parents=False)
    summary = environ.get("GITHUB_STEP_SUMMARY")
    if summary:  # GitHub Actions shows this file on the run's page
        with open(summary, "a", encoding="utf-8") as file:
            file.write(markdown + "\n")


def run(argv: Sequence[str], environ: Mapping[str, str]) -> int:
    """The step: its exit code; the report on stdout, problems on stderr."""
    args = _parser().parse_args(argv)
    try:
        target = _PLATFORMS[args.post](environ) if args.post != "none" else None
        markdown, exit_code = _gate(args)
        print(markdown)
        _write(markdown, args.output, environ)
        if target is not None:
            done = upsert_comment(target, comment_body(markdown))
            print(f"hookproof: the report comment was {done} on {target.platform}.")
    except HookproofError as error:
        print(error, file=sys.stderr)
        return 2
    return exit_code


def main(argv: Sequence[str] | None = None) -> int:
    return run(sys.argv[1:] if argv is None else argv, os.environ)


if __name__ == "__main__":
    sys.exit(main())
