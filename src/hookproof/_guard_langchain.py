"""The guard in front of every LangChain chat model, installed without importing LangChain.

``BaseChatModel`` reaches a provider's own code (``_generate``, ``_agenerate``, ``_stream``,
``_astream``, native stream-event hooks) only from a few of its own methods: invoke, ainvoke,
batch and abatch through ``_(a)generate_with_cache``; ``stream`` and ``astream`` directly; the
v3 stream events through ``_(a)iter_v2_events``. Each of those gets a wrapper that asks the
guard first (a no-op while the guard is off), then returns exactly what the original returns
(a result, a coroutine or a generator), so a refused call never starts.

If LangChain is already imported, it is patched at once; otherwise a meta-path finder patches
the module the moment it is imported (and again if it is ever re-imported).
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

from hookproof._guard import check_model

__all__ = ["CHOKEPOINTS", "install"]

MODULE = "langchain_core.language_models.chat_models"
CHOKEPOINTS = (
    "_generate_with_cache",
    "_agenerate_with_cache",
    "stream",
    "astream",
    "_iter_v2_events",
    "_aiter_v2_events",
)
_GUARDED = "_hookproof_guarded"
_LOCK = threading.RLock()
_finder_installed = False


def install() -> None:
    """Idempotent and thread-safe; cheap after the first call."""
    global _finder_installed
    with _LOCK:
        if not _finder_installed:
            sys.meta_path.insert(0, _PatchOnImport())
            _finder_installed = True
        module = sys.modules.get(MODULE)
        if module is not None:
            _patch(module)


def _patch(module: ModuleType) -> None:
    base = getattr(module, "BaseChatModel", None)
    if base is None:  # the module is still being executed by another thread's import
        return
    with _LOCK:
        for name in CHOKEPOINTS:
            original = base.__dict__.get(name)
            if original is not None and not getattr(original, _GUARDED, False):
                setattr(base, name, _guarded(original))


def _guarded(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def guarded(self: object, *args: Any, **kwargs: Any) -> Any:
        check_model(self)
        return original(self, *args, **kwargs)

    setattr(guarded, _GUARDED, True)
    return guarded


class _PatchOnImport:
    """Meta-path finder: lets the usual finders locate the chat-model module, and has it
    patched right after it executes."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != MODULE:
            return None
        spec = _find_elsewhere(self, fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _PatchingLoader(spec.loader)  # type: ignore[assignment]
        return spec


def _find_elsewhere(
    skip: object, fullname: str, path: Sequence[str] | None, target: ModuleType | None
) -> ModuleSpec | None:
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)
        if finder is skip or find_spec is None:
            continue
        spec: ModuleSpec | None = find_spec(fullname, path, target)
        if spec is not None:
            return spec
    return None


class _PatchingLoader:
    """Delegates to the real loader; patches the module once it has been executed."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        module: ModuleType | None = self._loader.create_module(spec)
        return module

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        _patch(module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)
