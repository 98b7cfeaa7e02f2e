"""Links into hookproof's documentation site, so an error or a fixture can name the page
that explains it. Pages are named by their file under ``docs/`` in the repository; the suite
checks that every page and anchor linked from hookproof's source exists there."""

from __future__ import annotations

__all__ = ["DOCS_URL", "docs_link"]

DOCS_URL = "https://hookproof.github.io/hookproof/"


def docs_link(page: str, anchor: str | None = None) -> str:
    """The site's address of ``page`` (``"reference/checks.md"``), at ``anchor`` if given:
    MkDocs serves ``a/b.md`` as ``a/b/``."""
    path = page.removesuffix(".md")
    path = "" if path == "index" else f"{path.removesuffix('/index')}/"
    return f"{DOCS_URL}{path}" + (f"#{anchor}" if anchor else "")
