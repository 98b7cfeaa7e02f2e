"""CHANGELOG.md keeps the Keep a Changelog structure: the title and its preamble, [Unreleased]
first, then releases as ``## [X.Y.Z] - YYYY-MM-DD``, newest first, each with its changes
under the six section names, no section twice in a release or empty, entries as bullets; a
link reference for every release heading when the file uses them (none otherwise); and the
package's version not behind the last release. Each rule is shown catching a broken twin."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import hookproof

REPO = Path(__file__).resolve().parents[2]
CHANGELOG = REPO / "CHANGELOG.md"
SECTIONS = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")
RELEASE = re.compile(r"^## \[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})$")
LINK = re.compile(r"^\[([^\]]+)\]: \S+$")


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _release_problems(headings: list[str]) -> list[str]:
    problems = []
    if not headings or headings[0] != "## [Unreleased]":
        problems.append("the first release heading is not ## [Unreleased]")
    releases = [(heading, RELEASE.match(heading)) for heading in headings[1:]]
    problems += [f"{h!r} is not ## [X.Y.Z] - YYYY-MM-DD" for h, m in releases if not m]
    keys = [(tuple(map(int, m.groups()[:3])), m.group(4)) for _, m in releases if m]
    if keys != sorted(keys, reverse=True) or len(set(keys)) != len(keys):
        problems.append("releases are not newest first (versions and dates both descending)")
    return problems


def _section_problems(lines: list[str]) -> list[str]:
    problems, release, seen, entries = [], "", set(), -1
    for line in [*lines, "## [end]"]:
        if line.startswith(("## ", "### ")) and entries == 0:
            problems.append(f"{release}: a section with no entries")
        if line.startswith("## "):
            release, seen, entries = line, set(), -1
        elif line.startswith("### "):
            name = line[4:]
            if name not in SECTIONS:
                problems.append(f"{release}: ### {name} is not one of {', '.join(SECTIONS)}")
            if name in seen:
                problems.append(f"{release}: ### {name} twice")
            seen.add(name)
            entries = 0
        elif line.startswith("- ") and entries >= 0:
            entries += 1
        elif line.startswith("- ") and release:
            problems.append(f"{release}: an entry outside any ### section")
    return problems


def _link_problems(lines: list[str], headings: list[str]) -> list[str]:
    links = {m.group(1) for m in map(LINK.match, lines) if m}
    if not links:
        return []
    names = {h[4 : h.index("]")] for h in headings}
    missing = sorted(names - links)
    return [f"no link reference for [{name}]" for name in missing]


def problems(text: str, version: str) -> list[str]:
    """Everything wrong with ``text`` as a Keep a Changelog file for package ``version``."""
    lines = text.split("\n")
    found = [] if lines[0] == "# Changelog" else ["the first line is not # Changelog"]
    if "keepachangelog.com" not in "\n".join(lines[:8]):
        found.append("the preamble does not say it follows Keep a Changelog")
    headings = [line for line in lines if line.startswith("## ")]
    found += _release_problems(headings) + _section_problems(lines)
    found += _link_problems(lines, headings)
    released = [_version(".".join(m.groups()[:3])) for m in map(RELEASE.match, headings) if m]
    if released and _version(version) < max(released):
        found.append(f"the package's version {version} is behind the last release")
    return found


def _project_version() -> str:
    with (REPO / "pyproject.toml").open("rb") as file:
        version: str = tomllib.load(file)["project"]["version"]
    return version


def test_the_changelog_keeps_its_structure() -> None:
    assert problems(CHANGELOG.read_text(encoding="utf-8"), _project_version()) == []


def test_the_package_says_the_version_its_metadata_says() -> None:
    assert hookproof.__version__ == _project_version()


GOOD = """# Changelog

Changes, in the format of [Keep a Changelog](https://keepachangelog.com/en/1.1.0/).

## [Unreleased]

### Added
- a thing

## [0.2.0] - 2026-03-01

### Fixed
- a fix

## [0.1.0] - 2026-01-01

### Added
- the start
"""


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("", "", None),
        ("## [Unreleased]\n\n### Added\n- a thing\n\n", "", "not ## [Unreleased]"),
        ("## [0.1.0] - 2026-01-01", "## 0.1.0 (2026-01-01)", "is not ## [X.Y.Z]"),
        ("[0.2.0] - 2026-03-01", "[0.0.9] - 2026-03-01", "newest first"),
        ("### Fixed", "### Bugfixes", "not one of Added"),
        ("### Fixed\n- a fix", "### Fixed\n- a fix\n\n### Fixed\n- another", "### Fixed twice"),
        ("### Fixed\n- a fix", "### Fixed\n\n### Added\n- a fix", "a section with no entries"),
        ("### Fixed\n- a fix", "- a fix", "an entry outside"),
        ("- the start\n", "- the start\n\n[Unreleased]: https://x/compare\n", "no link reference"),
        ("(https://keepachangelog.com/en/1.1.0/)", "", "does not say it follows"),
    ],
)
def test_each_rule_catches_its_broken_twin(old: str, new: str, says: str | None) -> None:
    found = problems(GOOD.replace(old, new, 1) if old else GOOD, "0.2.0")
    if says is None:
        assert found == []
    else:
        assert any(says in problem for problem in found), found


def test_a_package_version_behind_the_last_release_is_caught() -> None:
    assert problems(GOOD, "0.1.5") == ["the package's version 0.1.5 is behind the last release"]
