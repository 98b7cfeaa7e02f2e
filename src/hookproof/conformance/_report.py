"""A conformance report as data, rendered as an aligned text table or as JSON."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

__all__ = ["NOT_APPLICABLE", "ProbeResult", "format_json", "format_text"]

NOT_APPLICABLE = "n/a"


@dataclass(frozen=True)
class ProbeResult:
    probe: str
    target: str
    status: str  # baseline | holds | differs | n/a
    observed: str


def format_text(results: list[ProbeResult]) -> str:
    width = max((len(r.probe) for r in results), default=len("semantic"))
    lines = [f"{'semantic':<{width}}  {'target':<10} {'status':<9} observed"]
    lines += [f"{r.probe:<{width}}  {r.target:<10} {r.status:<9} {r.observed}" for r in results]
    return "\n".join(lines)


def format_json(results: list[ProbeResult]) -> str:
    return json.dumps([asdict(r) for r in results], indent=2, sort_keys=True)
