"""Skills: the ``<source>/<skill>/SKILL.md`` files in the file store, listed in the system
prompt by name and description."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from hookproof.harness._system import with_section
from hookproof.harness.backend import files_of
from hookproof.harness.prompts import SKILLS_SECTION
from hookproof.runtime import AgentMiddleware, ModelRequest

__all__ = ["SkillsMiddleware"]

Handler = Callable[[Any], Any]


_FRONTMATTER = re.compile(r"^(name|description):\s*(.+)$", re.MULTILINE)


class SkillsMiddleware(AgentMiddleware):
    """List the skills found as ``<source>/<skill>/SKILL.md`` in the file store."""

    def __init__(self, sources: Sequence[str]) -> None:
        self.sources = tuple(source.rstrip("/") + "/" for source in sources)

    def wrap_model_call(self, request: ModelRequest, handler: Handler) -> Any:
        files = files_of(request.state)
        found = [
            self._describe(path, files[path])
            for path in sorted(files)
            if path.endswith("/SKILL.md") and path.startswith(self.sources)
        ]
        if not found:
            return handler(request)
        return handler(with_section(request, SKILLS_SECTION.format(skills="\n".join(found))))

    @staticmethod
    def _describe(path: str, text: str) -> str:
        fields = dict(_FRONTMATTER.findall(text))
        name = fields.get("name", path.rsplit("/", 2)[-2])
        return f"- {name}: {fields.get('description', '(no description)')} ({path})"
