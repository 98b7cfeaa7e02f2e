"""The registry of targets: which framework runs a factory, and which owns a middleware.

An entry names its Target class, or the ``"module:Class"`` path of one, so a framework that
is not installed (or not used) is never imported: its module is loaded the first time a
factory or middleware reaches its entry. A new framework is one module that calls
``register_target`` when imported.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Sequence
from dataclasses import dataclass

from hookproof.errors import UsageError
from hookproof.targets._base import Build, Target

__all__ = [
    "as_target",
    "middleware_target",
    "register_target",
    "registered_targets",
    "target_class",
    "unregister_target",
]


@dataclass
class _Entry:
    target: type[Target] | str
    modules: tuple[str, ...]  # module prefixes of the framework's middleware classes
    detects: bool  # as_target tries it on factories
    last: bool  # tried after every other entry (it accepts any agent with invoke())


_ENTRIES: dict[str, _Entry] = {}
_ORDER: list[str] = []  # the names as_target tries, in order (kept in step with _ENTRIES)


def register_target(
    name: str,
    target: type[Target] | str,
    *,
    middleware_modules: Sequence[str] = (),
    detect: bool = True,
    last: bool = False,
) -> None:
    """Register a framework's Target class (or its ``"module:Class"`` path, loaded on first
    use). ``as_target`` tries registered targets in order on a factory (``last`` ones after
    the rest; ``detect=False`` ones never) and keeps the first whose ``agent()`` accepts what
    the factory builds. Middleware whose class (or a base) lives in a module starting with
    one of ``middleware_modules`` is checked with this target's hooks and samples."""
    if not isinstance(target, str) and not (
        isinstance(target, type) and issubclass(target, Target)
    ):
        raise UsageError(
            f"hookproof: register_target({name!r}, ...) takes a hookproof.targets.Target "
            f"subclass or a 'module:Class' path, got {target!r}."
        )
    _ENTRIES[name] = _Entry(target, tuple(middleware_modules), detect, last)
    _reorder()


def unregister_target(name: str) -> None:
    """Forget a registered target (for tests that register one of their own)."""
    _ENTRIES.pop(_known(name), None)
    _reorder()


def registered_targets() -> tuple[str, ...]:
    return tuple(_ENTRIES)


def target_class(name: str) -> type[Target]:
    """The Target class registered as ``name``, importing its module if needed (an
    ImportError when its framework is not installed)."""
    entry = _ENTRIES[_known(name)]
    if isinstance(entry.target, str):
        module, _, attribute = entry.target.partition(":")
        entry.target = getattr(importlib.import_module(module), attribute)
    return entry.target  # type: ignore[return-value]


def _known(name: str) -> str:
    if name in _ENTRIES:
        return name
    close = difflib.get_close_matches(name, _ENTRIES, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise UsageError(
        f"hookproof: no target is registered as {name!r}.{hint} Registered: {', '.join(_ENTRIES)}."
    )


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
    for name in _ORDER:
        cls = _installed(name)
        if cls is None:
            continue
        target = cls(build, tiers=tiers)
        try:
            agent = target.agent(target.models())
        except Exception as error:
            if first is not None and _ENTRIES[name].last:
                raise error from first
            first = first or error
            continue
        if target.accepts(agent):
            return target
    assert first is not None, "the reference target refuses what it cannot run"
    raise first


def _reorder() -> None:
    detected = [(entry.last, name) for name, entry in _ENTRIES.items() if entry.detects]
    _ORDER[:] = [name for _, name in sorted(detected, key=lambda pair: pair[0])]


def middleware_target(middleware: object) -> type[Target]:
    """The target whose framework owns ``middleware`` (by the modules of its classes, so no
    framework is imported for it); hookproof's runtime for anything else."""
    modules = [getattr(cls, "__module__", "") for cls in type(middleware).__mro__]
    for name, entry in _ENTRIES.items():
        if entry.modules and any(m.startswith(entry.modules) for m in modules):
            found = _installed(name)
            if found is not None:
                return found
    return target_class("reference")


def _register_builtins() -> None:
    register_target("reference", "hookproof.targets.reference:ReferenceTarget")
    register_target("harness", "hookproof.targets.reference:HarnessTarget", detect=False)
    register_target(
        "eino", "hookproof.targets.eino:EinoTarget", middleware_modules=("hookproof.eino",)
    )
    register_target(
        "langchain",
        "hookproof.adapters.langchain:LangChainTarget",
        middleware_modules=("langchain", "langgraph", "deepagents"),
        last=True,
    )
    # LangChainTarget runs deepagents graphs too; this one authors deep agents (conformance).
    register_target("deepagents", "hookproof.adapters.deepagents:DeepAgentsTarget", detect=False)


_register_builtins()
