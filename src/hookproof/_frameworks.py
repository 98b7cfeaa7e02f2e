"""The one list of the frameworks hookproof knows, and where each keeps its parts.

An entry names a framework's parts by ``"module:Name"`` path (or holds them), so nothing of a
framework is imported until something reaches its entry: its Target (how checks run its
agents), its hook sampler (how middleware checks call its middleware's hooks), its
conformance kit and the column of the conformance report the kit's probes show in, the
packages its classes come from, and the bridge that runs its objects on the reference
runtime. ``hookproof.targets`` registers and reads entries; the runtime reads the bridges
from here without importing any target.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from hookproof.errors import UsageError, did_you_mean

__all__ = [
    "Framework",
    "add",
    "bridge_of",
    "check_path",
    "columns",
    "entry",
    "frameworks",
    "load",
    "owners",
    "remove",
]


@dataclass(frozen=True)
class Framework:
    """A registered framework. Every part but ``target`` is optional."""

    name: str
    target: object  # a hookproof.targets.Target subclass, or its "module:Class" path
    packages: tuple[str, ...] = ()  # whose classes (and their subclasses) are this framework's
    sampler: object = None  # a hookproof.targets.HookSampler, or its "module:NAME" path
    kit: object = None  # a hookproof.targets.ConformanceKit, or its "module:NAME" path
    column: str | None = None  # the conformance report's column its kit's probes show in
    requires: str | None = None  # the module that must be installed for that column
    bridge: str | None = None  # "module:NAME" of the bridge running its objects on the runtime
    detect: bool = True  # as_target tries it on factories
    last: bool = False  # tried after every other entry (it accepts any agent with invoke())

    def owns(self, cls: type) -> bool:
        """Whether ``cls`` or one of its bases comes from one of the framework's packages."""
        modules = [getattr(item, "__module__", None) or "" for item in cls.__mro__]
        return any(
            module == package or module.startswith(package + ".")
            for module in modules
            for package in self.packages
        )


_ENTRIES: dict[str, Framework] = {}
_LOADED: dict[str, object] = {}  # "module:Name" -> the object
_BRIDGES: dict[type, object] = {}  # class -> its bridge (None: hookproof's own), until a change


def add(framework: Framework) -> None:
    _ENTRIES[framework.name] = framework
    _BRIDGES.clear()


def remove(name: str) -> None:
    _ENTRIES.pop(entry(name).name, None)
    _BRIDGES.clear()


def frameworks() -> tuple[Framework, ...]:
    """Every entry, in the order they were registered."""
    return tuple(_ENTRIES.values())


def columns() -> tuple[str, ...]:
    """Every column of the conformance report, in registration order, installed or not."""
    return tuple(dict.fromkeys(f.column for f in _ENTRIES.values() if f.column))


def entry(name: str) -> Framework:
    if name in _ENTRIES:
        return _ENTRIES[name]
    hint = did_you_mean(name, list(_ENTRIES))
    raise UsageError(
        f"hookproof: no target is registered as {name!r}.{hint} Registered: {', '.join(_ENTRIES)}."
    )


def load(part: object) -> object:
    """A part of an entry: itself, or what its ``"module:Name"`` path names, imported on
    first use (an ImportError when its framework is not installed)."""
    if not isinstance(part, str):
        return part
    if part not in _LOADED:
        _LOADED[part] = _import_path(part)
    return _LOADED[part]


def check_path(part: object, role: str) -> None:
    """Refuse at registration a part path that could never load (``"module:Name"``)."""
    if not isinstance(part, str):
        return
    module, colon, name = part.partition(":")
    dotted = module.split(".")
    if not colon or not name.isidentifier() or not all(p.isidentifier() for p in dotted):
        raise UsageError(
            f"hookproof: the {role} path {part!r} is not a 'module:Name' path (a dotted module, "
            "a colon, an attribute name). It is imported when a check first needs it, so it "
            "must name one. Write it as 'package.module:Name'."
        )


def _import_path(part: str) -> object:
    module_name, _, name = part.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name or not _top_package_installed(module_name):
            raise  # the framework is not installed: the caller treats it as absent
        raise UsageError(
            f"hookproof: {part!r} names module {module_name!r}, which its installed package "
            "does not have. A registered path that cannot load would make its framework look "
            "uninstalled and its checks be skipped. Fix the path given to register_target."
        ) from None
    try:
        return getattr(module, name)
    except AttributeError:
        raise UsageError(
            f"hookproof: {part!r} names {name!r}, which module {module_name!r} does not "
            "define. Fix the path given to register_target."
        ) from None


def _top_package_installed(module_name: str) -> bool:
    import importlib.util  # only a registered path that failed to import asks

    top = module_name.partition(".")[0]
    return top != module_name and importlib.util.find_spec(top) is not None


def owners(cls: type) -> list[Framework]:
    """The entries whose packages ``cls`` (or a base) comes from, in registration order."""
    return [framework for framework in _ENTRIES.values() if framework.owns(cls)]


def bridge_of(cls: type) -> object:
    """The bridge that runs objects of ``cls`` on the reference runtime, or None."""
    if cls not in _BRIDGES:
        found = [framework.bridge for framework in owners(cls) if framework.bridge]
        _BRIDGES[cls] = load(found[0]) if found else None
    return _BRIDGES[cls]


def _register_builtins() -> None:
    langchain = ("langchain", "langchain_core", "langgraph", "deepagents")
    for framework in (
        Framework(
            "reference",
            "hookproof.targets.reference:ReferenceTarget",
            sampler="hookproof.targets.reference:REFERENCE_SAMPLER",
            kit="hookproof.targets.reference:REFERENCE_KIT",
            column="reference",
        ),
        Framework(
            "harness",
            "hookproof.targets.reference:HarnessTarget",
            kit="hookproof.targets.reference:HARNESS_KIT",
            column="reference",
            detect=False,
        ),
        Framework(
            "eino",
            "hookproof.targets.eino:EinoTarget",
            packages=("hookproof.eino",),
            sampler="hookproof.targets.eino:EINO_SAMPLER",
            column="eino",  # its own catalogue against real Eino, not the probes
        ),
        Framework(
            "langchain",
            "hookproof.adapters.langchain.target:LangChainTarget",
            packages=langchain,
            sampler="hookproof.adapters.langchain.target:LANGCHAIN_SAMPLER",
            kit="hookproof.adapters.langchain.target:LANGCHAIN_KIT",
            column="langchain",
            requires="langchain",
            bridge="hookproof.adapters.langchain.bridge:BRIDGE",
            last=True,
        ),
        # LangChainTarget runs deepagents graphs too; this entry authors deep agents.
        Framework(
            "deepagents",
            "hookproof.adapters.deepagents:DeepAgentsTarget",
            kit="hookproof.adapters.deepagents:DEEPAGENTS_KIT",
            column="deepagents",
            requires="deepagents",
            detect=False,
        ),
    ):
        add(framework)


_register_builtins()
