"""``hookproof conformance``: which framework semantics hold on each installed target.

Each probe runs a tiny scripted agent and reports what it observed. The reference runtime's
observation is the baseline; another target "holds" when it observes the same, "differs"
otherwise (a difference is information, not a failure), and "n/a" when the probe does not
apply or the framework is not installed. The probes are written once (``_probes``) against
the targets of ``hookproof.targets``; reports are data, rendered as text or JSON.

The ``eino`` target is separate (``run_eino_conformance``): each semantic of a named
catalogue (``EINO_SEMANTICS``) runs its scenarios on hookproof.eino and on real Eino, built
from the Go sources hookproof ships, and holds when both show the same events, handler trace
and FinalRequests. It needs the Go toolchain, and raises GoToolchainError without it.
"""

from __future__ import annotations

import importlib.util

from hookproof.conformance._eino import EINO_TARGET, run_eino_conformance
from hookproof.conformance._eino_scenarios import EINO_SEMANTICS
from hookproof.conformance._probes import CORE_PROBES, HARNESS_PROBES, outcome, probes_of
from hookproof.conformance._report import NOT_APPLICABLE, ProbeResult, format_json, format_text
from hookproof.targets import target_class

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

# A column of the report: the framework module it needs, and the registered targets whose
# probes it shows (the first to offer a probe observes it: the reference column takes the
# runtime's core probes and the harness's profile probes).
_COLUMNS: dict[str, tuple[str, tuple[str, ...]]] = {
    "reference": ("hookproof", ("reference", "harness")),
    "langchain": ("langchain", ("langchain",)),
    "deepagents": ("deepagents", ("deepagents",)),
}


def targets() -> list[str]:
    """The targets whose framework is installed."""
    return [name for name, (module, _) in _COLUMNS.items() if importlib.util.find_spec(module)]


def _observe(column: str) -> dict[str, str]:
    observed: dict[str, str] = {}
    for name in _COLUMNS[column][1]:
        for probe, action in probes_of(target_class(name)).items():
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
        if name not in _COLUMNS or name not in targets():
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
