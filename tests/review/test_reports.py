"""Every gate report shows the changed lines, most severe first, grouped across snapshots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookproof import gate
from hookproof.cli import main
from hookproof.gate._markdown import PR_COMMENT_LIMIT
from tests.review.helpers import DELETE, READ, request, tool, upgrade, write
from tests.secret_corpus import SECRETS

FORMATS = ("text", "markdown", "json", "html")
# A prompt line, a tool description and a new tool: each with its actual lines.
SHOWN = (
    "Cite your sources.",
    "Cite every source you use.",
    "Read a file.",
    "Read a UTF-8 text file.",
    "Delete a file for good.",
)


def _report(tmp_path: Path, *options: str, directories: tuple[Path, Path] | None = None) -> str:
    old, new = directories or upgrade(tmp_path)
    output = tmp_path / "report.out"
    main(["gate", str(old), str(new), *options, "-o", str(output)])
    return output.read_text(encoding="utf-8")


@pytest.mark.parametrize("format_name", FORMATS)
def test_every_format_shows_the_lines_that_changed(tmp_path: Path, format_name: str) -> None:
    out = _report(tmp_path, "--format", format_name)
    missing = [line for line in SHOWN if line not in out]
    assert missing == []


def test_text_report_is_a_unified_diff_per_finding(tmp_path: Path) -> None:
    out = _report(tmp_path)
    assert (
        "REVIEW   system prompt: lines changed (from Policy)\n"
        "  in 3 snapshots: tests/test_app/case_0.txt, tests/test_app/case_1.txt, "
        "tests/test_app/case_2.txt\n"
        "    @@ -1,4 +1,4 @@\n"
        "     [text]\n"
        "     | You are a careful assistant.\n"
        "    -| Cite your sources.\n"
        "    +| Cite every source you use.\n"
        "     | Never guess.\n"
    ) in out
    assert "    +| Delete a file for good.\n" in out
    assert (
        "SECURITY tool delete: now visible to the model (registered by FilesystemMiddleware)\n"
        in out
    )
    assert (
        "REVIEW   tool read_file: description changed "
        "(registered by FilesystemMiddleware; description changed by Upgrade)\n"
    ) in out


def test_identical_changes_are_reported_once_with_every_snapshot(tmp_path: Path) -> None:
    old, new = upgrade(tmp_path, snapshots=9)
    report = gate.compare_directories(old, new)
    assert [(f.kinds[0].value, f.subject, len(f.paths)) for f in report.findings] == [
        ("SECURITY", "tool delete", 9),
        ("REVIEW", "system prompt", 9),
        ("REVIEW", "tool read_file", 9),
    ]
    text = gate.format_text(report)
    assert text.count("SECURITY tool delete: now visible to the model") == 1
    assert "in 9 snapshots: tests/test_app/case_0.txt" in text
    assert "(in 9 snapshots)" in gate.format_markdown(report)
    assert "in 9 snapshots:" in gate.format_html(report)


def test_a_change_that_differs_between_snapshots_is_not_merged(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    for name, description in (("a.txt", "Read one file."), ("b.txt", "Read two files.")):
        write(old, name, request())
        write(new, name, request(tools=(tool("read_file", description, path={}),)))
    findings = gate.compare_directories(old, new).findings
    assert [finding.paths for finding in findings] == [("a.txt",), ("b.txt",)]


def test_json_findings_carry_their_classes_in_order(tmp_path: Path) -> None:
    data = json.loads(_report(tmp_path, "--format", "json", directories=_every_class(tmp_path)))
    assert [f["classes"] for f in data["findings"]] == [
        ["SECURITY"],
        ["BREAKING"],
        ["REVIEW"],
        ["COSMETIC"],
    ]
    assert [c["class"] for c in data["files"][0]["changes"]] == [
        "SECURITY",
        "BREAKING",
        "REVIEW",
        "COSMETIC",
    ]


def _every_class(tmp_path: Path) -> tuple[Path, Path]:
    old, new = tmp_path / "old", tmp_path / "new"
    export = tool("export", "Export.", what={"type": "string"})
    write(old, "s.txt", request(prompt="One.", tools=(READ, export), user="Two words."))
    write(new, "s.txt", request(prompt="One more.", tools=(READ, DELETE), user="Two  words."))
    return old, new


@pytest.mark.parametrize("format_name", FORMATS)
def test_findings_are_ordered_security_breaking_review_cosmetic(
    tmp_path: Path, format_name: str
) -> None:
    out = _report(tmp_path, "--format", format_name, directories=_every_class(tmp_path))
    if format_name == "json":
        out = json.dumps(json.loads(out)["findings"])
    markers = ("tool delete", "tool export", "One more.", "Two  words.")
    positions = [out.index(marker) for marker in markers]
    assert positions == sorted(positions)


def test_a_long_diff_is_capped_with_the_number_of_lines_left_out(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    write(old, "s.txt", request(prompt="\n".join(f"rule {n}" for n in range(100))))
    write(new, "s.txt", request(prompt="\n".join(f"new rule {n}" for n in range(100))))
    report = gate.compare_directories(old, new)
    # 1 hunk header, 100 removed, 100 added, [text] context; 60 shown in text
    assert "    ... 142 more lines\n" in gate.format_text(report)
    assert "... 162 more lines" in gate.format_markdown(report)
    finding = json.loads(gate.format_json(report))["findings"][0]
    assert (len(finding["diff"]), finding["diff_more_lines"]) == (202, 0)


def test_a_very_long_line_is_cut_and_says_how_much(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    write(old, "s.txt", request(prompt="short"))
    write(new, "s.txt", request(prompt="x" * 1000))
    text = gate.format_text(gate.compare_directories(old, new))
    assert "+| " + "x" * 397 + " [... 603 more characters]" in text


def test_markdown_stays_within_a_pull_request_comment_and_says_so(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    for index in range(120):
        prompt = "\n".join(f"snapshot {index} rule {n}" for n in range(30))
        write(old, f"s{index:03}.txt", request(prompt=prompt))
        write(new, f"s{index:03}.txt", request(prompt=prompt.upper(), tools=(READ, DELETE)))
    out = gate.format_markdown(gate.compare_directories(old, new))
    assert len(out) <= PR_COMMENT_LIMIT
    assert "**Report cut** at 65,536 characters" in out
    assert "<b>SECURITY</b> tool delete: now visible to the model (in 120 snapshots)" in out
    shown = out.count("<details>")
    assert f"{120 - shown + 1} more findings not shown after the {shown} above" in out


def test_a_diff_with_backticks_keeps_its_fence_closed(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    write(old, "s.txt", request(prompt="Use ```python blocks."))
    write(new, "s.txt", request(prompt="Use ````python blocks."))
    out = gate.format_markdown(gate.compare_directories(old, new))
    assert "`````diff\n" in out and "\n`````\n" in out


def test_html_escapes_what_the_snapshots_hold(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    write(old, "s.txt", request())
    write(new, "s.txt", request(tools=(READ, tool("evil", "<script>alert(1)</script>"))))
    page = gate.format_html(gate.compare_directories(old, new))
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_html_is_self_contained(tmp_path: Path) -> None:
    page = _report(tmp_path, "--format", "html")
    assert page.startswith("<!DOCTYPE html>")
    for external in ("<link", " src=", "http://", "https://", "@import", "url("):
        assert external not in page


@pytest.mark.parametrize("format_name", FORMATS)
def test_a_secret_in_a_snapshot_is_redacted_in_every_format(
    tmp_path: Path, format_name: str
) -> None:
    old, new = upgrade(tmp_path, snapshots=1)
    secret = SECRETS["openai_legacy"]
    path = new / "tests/test_app/case_0.txt"
    path.write_text(path.read_text().replace("Never guess.", f"Never guess {secret}."))
    out = _report(tmp_path, "--format", format_name, directories=(old, new))
    assert "Never guess" in out
    assert secret not in out
    assert secret[:12] not in out


def test_an_unwritable_output_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = upgrade(tmp_path, snapshots=1)
    target = tmp_path / "missing" / "report.html"
    assert main(["gate", str(old), str(new), "--format", "html", "-o", str(target)]) == 2
    assert "cannot write the report to" in capsys.readouterr().err


def test_html_lists_each_changed_snapshot_with_its_classes(tmp_path: Path) -> None:
    page = _report(tmp_path, "--format", "html", directories=_every_class(tmp_path))
    row = page.split("<td>s.txt</td><td>changed</td>")[1].split("</tr>")[0]
    badges = [kind for kind in ("SECURITY", "BREAKING", "REVIEW", "COSMETIC") if kind in row]
    assert badges == ["SECURITY", "BREAKING", "REVIEW", "COSMETIC"]
    assert [row.index(kind) for kind in badges] == sorted(row.index(kind) for kind in badges)


@pytest.mark.parametrize("format_name", FORMATS)
def test_every_format_is_the_same_on_every_run(tmp_path: Path, format_name: str) -> None:
    directories = _every_class(tmp_path)
    first = _report(tmp_path, "--format", format_name, directories=directories)
    assert _report(tmp_path, "--format", format_name, directories=directories) == first


def test_markdown_names_at_most_twenty_snapshots_per_finding(tmp_path: Path) -> None:
    old, new = upgrade(tmp_path, snapshots=25)
    out = gate.format_markdown(gate.compare_directories(old, new))
    for block in out.split("<details>")[1:]:
        line = block.split("\n")[2]
        assert line.count("<code>") == 20
        assert line.endswith("</code> and 5 more</p>")


def test_pending_files_are_not_snapshots_to_the_gate(tmp_path: Path) -> None:
    old, new = upgrade(tmp_path, snapshots=1)
    (new / "tests/test_app/case_0.txt.pending").write_text("not a snapshot\n")
    report = gate.compare_directories(old, new)
    assert [item.path for item in report.files] == ["tests/test_app/case_0.txt"]
