"""The registry of targets: which framework runs a factory, owns a middleware, authors probes.

An entry (kept in ``hookproof._frameworks``, the one list of frameworks) names its Target
class and its other parts, or the ``"module:Name"`` paths of them, so a framework that is not
installed (or not used) is never imported: its module is loaded the first time a factory,
middleware or probe reaches its entry. A new framework is one module plus one
``register_target`` call.
"""

from __future__ import annotations

from collections.abc import Sequence

from hookproof import _frameworks
from hookproof._frameworks import Framework
from hookproof.errors import UsageError
from hookproof.targets._base import Build, Target
from hookproof.targets.authoring import ConformanceKit
from hookproof.targets.sampler import HookSampler


def register_target(
    name: str,
    target: type[Target] | str,
    *,
    middleware_modules: Sequence[str] = (),
    sampler: HookSampler | str | None = None,
    kit: ConformanceKit | str | None = None,
    conformance: str | None = None,
    requires: str | None = None,
    bridge: str | None = None,
    detect: bool = True,
    last: bool = False,
) -> None:
    """Register a framework's Target class (or its ``"module:Class"`` path, loaded on first
    use). ``as_target`` tries registered targets in order on a factory (``last`` ones after
    the rest; ``detect=False`` ones never) and keeps the first whose ``agent()`` accepts what
    the factory builds. Middleware whose class (or a base) comes from one of the packages
    ``middleware_modules`` is checked with the ``sampler`` (a HookSampler), and run on the
    reference runtime through ``bridge`` (``"module:NAME"``) when one is given. A ``kit``
    (a ConformanceKit) puts the probes of ``hookproof conformance`` in the report's column
    ``conformance`` (the target's name by default) when the module ``requires`` is
    installed. A taken name is refused: ``unregister_target`` it first (replacing an entry in
    place would lose its parts, and unregistering the replacement the framework itself)."""
    if name in registered_targets():
        raise UsageError(
            f"hookproof: a target named {name!r} is already registered. Pick another name, "
            f"or unregister_target({name!r}) first."
        )
    _check(name, "target", target, isinstance(target, type) and issubclass(target, Target))
    _check(name, "sampler", sampler, sampler is None or isinstance(sampler, HookSampler))
    _check(name, "kit", kit, kit is None or isinstance(kit, ConformanceKit))
    for role, part in (("target", target), ("sampler", sampler), ("kit", kit), ("bridge", bridge)):
        _frameworks.check_path(part, role)
    framework = Framework(
        name,
        target,
        packages=tuple(middleware_modules),
        sampler=sampler,
        kit=kit,
        column=conformance or (name if kit is not None else None),
        requires=requires,
        bridge=bridge,
        detect=detect,
        last=last,
    )
    _frameworks.add(framework)


_EXPECTED = {
    "target": "a hookproof.targets.Target subclass",
    "sampler": "a hookproof.targets.HookSampler",
    "kit": "a hookproof.targets.ConformanceKit",
}


def _check(name: str, part: str, value: object, fits: bool) -> None:
    if not fits and not isinstance(value, str):
        raise UsageError(
            f"hookproof: register_target({name!r}, ...) takes as its {part} "
            f"{_EXPECTED[part]} or a 'module:Name' path, got {value!r}."
        )


def unregister_target(name: str) -> None:
    """Forget a registered target (for tests that register one of their own)."""
    _frameworks.remove(name)


def registered_targets() -> tuple[str, ...]:
    return tuple(framework.name for framework in _frameworks.frameworks())


def target_class(name: str) -> type[Target]:
    """The Target class registered as ``name``, importing its module if needed (an
    ImportError when its framework is not installed)."""
    return _frameworks.load(_frameworks.entry(name).target)  # type: ignore[return-value]


def conformance_columns() -> tuple[str, ...]:
    """Every column of the conformance report, in the registry's order, installed or not:
    the choices of ``hookproof conformance --target``."""
    return _frameworks.columns()


def conformance_kit(name: str) -> ConformanceKit | None:
    """The conformance kit registered with target ``name`` (None: it has none)."""
    kit = _frameworks.entry(name).kit
    return None if kit is None else _frameworks.load(kit)  # type: ignore[return-value]


def _installed(name: str) -> type[Target] | None:
    try:
        return target_class(name)
    except ImportError:
        return None


def as_target(build: Build | Target, tiers: Sequence[str] | None = None) -> Target:
    """The Target for a factory (or the Target itself): the first registered target that
    builds the factory's agent with its own models and ``accepts`` it. When none does, the
    first refusal is raised, or the build error of a ``last`` target (LangChain's), which
    is the informative one when the factory builds for a framework that is installed."""
    if isinstance(build, Target) or not callable(build):
        return build  # a Target, or an object that runs like one
    first: Exception | None = None
    for framework in _detection_order():
        cls = _installed(framework.name)
        if cls is None:
            continue
        target = cls(build, tiers=tiers)
        try:
            models = target.models()
            agent = target.agent(models)
        except Exception as error:
            if first is not None and framework.last:
                raise error from first
            first = first or error
            continue
        if target.accepts(agent):
            keep = getattr(target, "_keep_built", None)
            if callable(keep):  # the first run may take this agent instead of building one
                keep(models, agent)
            return target
    assert first is not None, "the reference target refuses what it cannot run"
    raise first


def _detection_order() -> list[Framework]:
    detected = [framework for framework in _frameworks.frameworks() if framework.detect]
    return sorted(detected, key=lambda framework: framework.last)


def middleware_target(middleware: object) -> type[Target]:
    """The target whose framework owns ``middleware`` (by the modules of its classes, so no
    framework is imported for it); hookproof's runtime for anything else."""
    for framework in _frameworks.owners(type(middleware)):
        found = _installed(framework.name)
        if found is not None:
            return found
    return target_class("reference")


def hook_sampler(middleware: object) -> HookSampler:
    """How the framework that owns ``middleware`` calls its hooks on sample requests (by the
    modules of its classes); the reference runtime's sampler for middleware no registered
    framework owns (hookproof's own). A framework registered without a sampler cannot have
    its middleware's hooks called: that is an error, never the reference runtime's way."""
    owners = _frameworks.owners(type(middleware))
    sampler = next((f.sampler for f in owners if f.sampler is not None), None)
    if owners and sampler is None:
        name = owners[0].name
        raise NotImplementedError(
            f"hookproof: the {name} target has no hook sampler, so this check cannot call the "
            f"hooks of {type(middleware).__name__}. Register it with "
            f"register_target({name!r}, ..., sampler=HookSampler(...))."
        )
    found = _frameworks.entry("reference").sampler if sampler is None else sampler
    return _frameworks.load(found)  # type: ignore[return-value]
