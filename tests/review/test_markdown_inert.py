"""The markdown gate report is posted on pull requests: what snapshots hold stays inert.

Every hostile string below reaches the report as a tool name, a description, a prompt line,
an origin or a snapshot's path. The report is rendered by a real CommonMark renderer with
GitHub's extensions (tables, strikethrough, autolinks), then read back: no link, image or
tag from the input, and no text GitHub would turn into a mention, reference, emoji or link.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from hookproof import gate
from hookproof.provenance import AGENT, Provenance, ToolOrigin
from tests.review.helpers import READ, request, tool, write

HOSTILE = (
    "[Approve](http://evil.example/approve)",
    "![t](http://evil.example/t.png)",
    "@octocat and @org/team",
    "<img src=x onerror=alert(1)>",
    "<a href='http://evil.example'>click</a>",
    "bare http://evil.example/x www.evil.example and mail@evil.example",
    "see #123 and :shipit:",
    "fixes GH-123 and gh-7 in octo-org/hello.world#45 and octo/repo@1a2b3c4",
    "reverts 1a2b3c4 and deadbeefcafe and 0123456789abcdef0123456789abcdef01234567",
    "| a | b |\n|---|---|\n| c | d |",
    "one\n\n# Heading\n\n<script>alert(1)</script>",
    "``` `code` ```",
    "</summary></details><details><summary>forged",
    "*emph* __bold__ ~~strike~~",
    "\\[escaped\\](http://evil.example)",
    "[ref]: http://evil.example",
    "&lt;img src=x&gt;",
)
# Tool names hold no path separators or line breaks, so these stand in for them there.
HOSTILE_NAME = "[Approve](javascript:alert(1))_@octocat_<img_src=x>_#1_:shipit:"
# Tags the report itself writes; anything else in the rendered page came from the input.
OWN_TAGS = {"h3", "p", "details", "summary", "b", "code", "ul", "li", "pre", "strong"}
# What GitHub links in rendered text outside code: mentions, references (#1, GH-1,
# owner/repo#1), commit SHAs (bare, owner/repo@sha), emoji, addresses.
LIVE = re.compile(
    r"(?<![\w`])@[a-z0-9]|(?<!\w)#\d|:[a-z0-9_+-]+:|[a-z]+://|(?<![\w.])www\.|\w@\w"
    r"|(?<![\w-])gh-\d|\w/[\w.-]+[#@]\w|(?<!\w)[0-9a-f]{7,40}(?!\w)",
    re.IGNORECASE,
)


class _Rendered(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.prose: list[str] = []
        self.text: list[str] = []
        self._code = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self._code += tag in ("code", "pre")

    def handle_endtag(self, tag: str) -> None:
        self._code -= tag in ("code", "pre")

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if not self._code:
            self.prose.append(data)


def _hostile_directories(tmp_path: Path) -> tuple[Path, Path]:
    old, new = tmp_path / "old", tmp_path / "new"
    described = tuple(tool(f"t{n}", text, path={}) for n, text in enumerate(HOSTILE))
    origins = tuple(
        ToolOrigin(t.name, (f"registered by {text}",))
        for t, text in zip(described, HOSTILE, strict=True)
    )
    for name in (f"{text}.txt" for text in HOSTILE):
        write(old, name, request(tools=(READ, tool(HOSTILE_NAME, "x"))))
        after = request("\n".join(HOSTILE), (tool(HOSTILE_NAME, "changed", path={}), *described))
        write(new, name, after.with_provenance(Provenance(tools=origins, system=(AGENT,))))
    return old, new


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> gate.GateReport:
    return gate.compare_directories(*_hostile_directories(tmp_path_factory.mktemp("hostile")))


def _rendered(markdown: str) -> _Rendered:
    renderer = MarkdownIt("gfm-like", {"linkify": True})
    parsed = _Rendered()
    parsed.feed(renderer.render(markdown))
    return parsed


def test_the_corpus_reaches_every_part_of_the_markdown_report(report: gate.GateReport) -> None:
    markdown = gate.format_markdown(report)
    assert markdown.count("\n<details><summary><b>") == len(report.findings) > 10
    assert "<ul>" in markdown and "<li>" in markdown  # a finding of several changes


def test_no_link_image_or_tag_from_snapshots_survives_rendering(
    report: gate.GateReport,
) -> None:
    rendered = _rendered(gate.format_markdown(report))
    assert set(rendered.tags) <= OWN_TAGS


def test_no_mention_reference_emoji_or_address_is_live_outside_code(
    report: gate.GateReport,
) -> None:
    prose = "".join(_rendered(gate.format_markdown(report)).prose)
    assert LIVE.findall(prose) == []
    assert "@\u2060octocat" in prose  # still there to read, only not a mention
    assert "GH-\u2060123" in prose and "1\u2060a2b3c4" in prose


def test_what_a_reader_sees_is_what_the_snapshots_hold(report: gate.GateReport) -> None:
    seen = "".join(_rendered(gate.format_markdown(report)).text).replace("\u2060", "")
    missing = [text for text in (*HOSTILE, HOSTILE_NAME) if text.replace("\n", " ⏎ ") not in seen]
    assert missing == []


def test_text_and_json_reports_stay_faithful(report: gate.GateReport) -> None:
    text = gate.format_text(report)
    data = json.loads(gate.format_json(report))
    subjects = {finding["subject"] for finding in data["findings"]}
    assert f"tool {HOSTILE_NAME}" in subjects
    assert {Path(f"{name}.txt").as_posix() for name in HOSTILE} <= {
        item["path"] for item in data["files"]
    }
    assert HOSTILE_NAME in text and "registered by <img src=x onerror=alert(1)>" in text
    assert "\u2060" not in text + gate.format_json(report)
