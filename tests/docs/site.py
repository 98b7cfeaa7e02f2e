"""The pages of the documentation site this suite reads: README.md (the front page) and every
page under docs/ but the tutorials and how-to pages, whose own tests run their examples.
Their code blocks, headings and links, read the way MkDocs reads them."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
README = REPO / "README.md"
TESTED_ELSEWHERE = ("tutorials", "how-to")
FILE_HEADER = re.compile(r"# ([\w/]+\.py)\n")
LANGCHAIN_IMPORT = re.compile(r"^\s*(from|import) (langchain|langgraph|deepagents)\b", re.MULTILINE)


def site_pages() -> list[Path]:
    """README.md and the docs/ pages whose examples this suite runs."""
    pages = [
        page
        for page in sorted(DOCS.rglob("*.md"))
        if page.relative_to(DOCS).parts[0] not in TESTED_ELSEWHERE
    ]
    return [README, *pages]


def page_id(page: Path) -> str:
    return str(page.relative_to(REPO))


def page(name: str) -> Path:
    """A docs/ page by its name under docs/ (``"concepts/contracts.md"``)."""
    return DOCS / name


def text_of(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def code_blocks(path: Path, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text_of(path), re.S | re.M)


def project_files(path: Path) -> dict[str, str]:
    """The example project of a page: each python block that starts with a file name."""
    return {
        header.group(1): block
        for block in code_blocks(path, "python")
        if (header := FILE_HEADER.match(block))
    }


def runnable_blocks(path: Path, *, langchain: bool) -> list[str]:
    """A page's python examples that run as they are ("my_" marks sketches that need your
    own code; file blocks run as a project): those that import LangChain, or the others."""
    return [
        block
        for block in code_blocks(path, "python")
        if "my_" not in block
        and not FILE_HEADER.match(block)
        and (LANGCHAIN_IMPORT.search(block) is not None) == langchain
    ]


def slug(heading: str) -> str:
    """The anchor MkDocs (Python-Markdown's toc) gives a heading."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link reads as its text
    text = text.replace("`", "")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(path: Path) -> set[str]:
    """The anchors of a page's headings (outside code blocks)."""
    found: set[str] = set()
    fenced = False
    for line in text_of(path).splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (heading := re.match(r"#{1,6} (.+)", line)):
            anchor = slug(heading.group(1))
            number = 0
            while (anchor if number == 0 else f"{anchor}_{number}") in found:
                number += 1
            found.add(anchor if number == 0 else f"{anchor}_{number}")
    return found


def relative_links(path: Path) -> list[str]:
    """The targets of a page's Markdown links that point into the repository."""
    text = re.sub(r"^```.*?^```", "", text_of(path), flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    return [target for target in targets if not re.match(r"[a-z]+:", target)]
