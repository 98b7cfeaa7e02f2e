"""``hookproof conformance``: which framework semantics hold on each installed target.

Each probe runs a tiny scripted agent and reports what it observed. The reference runtime's
observation is the baseline; another target "holds" when it observes the same, "differs"
otherwise (a difference is information, not a failure), and "n/a" when the probe does not
apply or the framework is not installed. The probes are written once (``_probes``) against
the conformance kits of ``hookproof.targets``; the columns come from the target registry
(an entry's ``conformance`` column, shown when its ``requires`` module is installed);
reports are data, rendered as text or JSON.

The ``eino`` target is separate (``run_eino_conformance``): each semantic of a named
catalogue (``EINO_SEMANTICS``) runs its scenarios on hookproof.eino and on real Eino, built
from the Go sources hookproof ships, and holds when both show the same events, handler trace
and FinalRequests. It needs the Go toolchain, and raises GoToolchainError without it.
"""

from __future__ import annotations

import importlib.util

from hookproof import _frameworks
from hookproof.conformance._eino import EINO_TARGET, run_eino_conformance
from hookproof.conformance._eino_scenarios import EINO_SEMANTICS
from hookproof.conformance._probes import CORE_PROBES, HARNESS_PROBES, outcome, probes_of
from hookproof.conformance._report import NOT_APPLICABLE, ProbeResult, format_json, format_text
from hookproof.targets import conformance_columns, conformance_kit

__all__ = [
    "EINO_SEMANTICS",
    "EINO_TARGET",
    "PROBES",
    "ProbeResult",
    "format_json",
    "format_text",
    "run_conformance",
    "run_eino_conformance",
    "targets",
]

PROBES = (*CORE_PROBES, *HARNESS_PROBES)


def _probed(column: str) -> list[_frameworks.Framework]:
    """The entries whose kits' probes the column shows (the first to offer a probe observes
    it: the reference column takes the runtime's core probes and the harness's profile
    probes)."""
    return [f for f in _frameworks.frameworks() if f.column == column and f.kit is not None]


def targets() -> list[str]:
    """The probed columns whose framework is installed (the eino column runs its own
    catalogue, ``run_eino_conformance``, instead of the probes)."""
    return [
        column
        for column in conformance_columns()
        if _probed(column) and all(_installed(f.requires) for f in _probed(column))
    ]


def _installed(module: str | None) -> bool:
    return module is None or importlib.util.find_spec(module) is not None


def _observe(column: str) -> dict[str, str]:
    observed: dict[str, str] = {}
    for framework in _probed(column):
        kit = conformance_kit(framework.name)
        assert kit is not None, "a probed entry has a kit"
        for probe, action in probes_of(kit).items():
            if probe not in observed:
                observed[probe] = outcome(action)
    return observed


def _same(baseline: str, observed: str) -> bool:
    def kind(text: str) -> str:
        return "raises" if text.startswith("raises ") else text

    return kind(baseline) == kind(observed) or baseline == observed


def run_conformance(selected: list[str] | None = None) -> list[ProbeResult]:
    """Run every probe on each selected installed target; the reference is the baseline."""
    names = selected or targets()
    baseline = _observe("reference")
    results = []
    for name in names:
        if name not in targets():
            results += [ProbeResult(p, name, NOT_APPLICABLE, "not installed") for p in PROBES]
            continue
        observed = baseline if name == "reference" else _observe(name)
        results += [_judge(probe, name, baseline, observed) for probe in PROBES]
    return results


def _judge(
    probe: str, target: str, baseline: dict[str, str], observed: dict[str, str]
) -> ProbeResult:
    if probe not in observed:
        return ProbeResult(probe, target, NOT_APPLICABLE, "does not apply to this target")
    if target == "reference":
        return ProbeResult(probe, target, "baseline", observed[probe])
    same = _same(baseline[probe], observed[probe])
    return ProbeResult(probe, target, "holds" if same else "differs", observed[probe])
