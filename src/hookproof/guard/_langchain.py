"""The guard in front of every LangChain model, installed without importing LangChain.

Three kinds of LangChain model reach a provider: chat models (``BaseChatModel``), text
completion models (``BaseLLM``, e.g. ``langchain_openai.OpenAI``) and embeddings
(``Embeddings``, e.g. ``OpenAIEmbeddings``). The guard asks ``check_model`` (a no-op while
the guard is off) before any of them runs, in two places:

1. the base class's own entry points that lead to a provider's code: for chat models
   ``_(a)generate_with_cache`` (invoke, ainvoke, batch, abatch), ``stream``, ``astream`` and
   the v3 stream events; for completion models ``generate``, ``agenerate``, ``stream``,
   ``astream``;
2. every method of a subclass that could call a provider itself, wherever the subclass
   defines it: the public entry points (invoke, stream, batch, ... and their async twins)
   and the provider hooks (``_generate``, ``_stream``, ``_call``, ``embed_documents``, ...),
   so a model that overrides ``invoke``, or a test calling ``ChatOpenAI._generate`` directly,
   is refused too. Subclasses that exist when the guard is installed are wrapped then; later
   ones as they are defined (``__init_subclass__`` of the base).

A wrapper returns exactly what the original returns (a result, a coroutine or a generator),
so a refused call never starts. A module already imported is patched at once; otherwise a
meta-path finder patches it the moment it is imported (and again if it is re-imported).
Not seen: methods of a subclass's own beyond these names, and code that calls a provider's
SDK without going through a LangChain model (the socket line still applies).
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import FunctionType, ModuleType

from hookproof.guard._models import check_model

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["CHOKEPOINTS", "GUARDED_BASES", "install"]

MODULE = "langchain_core.language_models.chat_models"
CHOKEPOINTS = (
    "_generate_with_cache",
    "_agenerate_with_cache",
    "stream",
    "astream",
    "_iter_v2_events",
    "_aiter_v2_events",
)
_ENTRY_POINTS = (
    "invoke",
    "ainvoke",
    "stream",
    "astream",
    "batch",
    "abatch",
    "batch_as_completed",
    "abatch_as_completed",
    "transform",
    "atransform",
    "generate",
    "agenerate",
    "generate_prompt",
    "agenerate_prompt",
)
_PROVIDER_HOOKS = (
    "_generate",
    "_agenerate",
    "_stream",
    "_astream",
    "_call",
    "_acall",
    "_generate_with_cache",
    "_agenerate_with_cache",
    "_stream_chat_model_events",
    "_astream_chat_model_events",
)
_EMBEDDING_METHODS = ("embed_documents", "embed_query", "aembed_documents", "aembed_query")


class _Base:
    """A LangChain base class: its own entry points to guard, and what its subclasses may
    define that reaches a provider."""

    def __init__(self, module: str, name: str, own: Sequence[str], inherited: Sequence[str]):
        self.module, self.name, self.own, self.inherited = module, name, own, inherited


GUARDED_BASES = (
    _Base(MODULE, "BaseChatModel", CHOKEPOINTS, _ENTRY_POINTS + _PROVIDER_HOOKS),
    _Base(
        "langchain_core.language_models.llms",
        "BaseLLM",
        ("generate", "agenerate", "stream", "astream"),
        _ENTRY_POINTS + _PROVIDER_HOOKS,
    ),
    _Base("langchain_core.embeddings.embeddings", "Embeddings", (), _EMBEDDING_METHODS),
)
_BY_MODULE = {base.module: base for base in GUARDED_BASES}
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
        for base in GUARDED_BASES:
            module = sys.modules.get(base.module)
            if module is not None:
                _patch(module)


def _patch(module: ModuleType) -> None:
    described = _BY_MODULE[module.__name__]
    base = getattr(module, described.name, None)
    if base is None:  # the module is still being executed by another thread's import
        return
    with _LOCK:
        _wrap_methods(base, described.own)
        if not getattr(base.__dict__.get("__init_subclass__"), _GUARDED, False):
            setattr(base, "__init_subclass__", _subclass_hook(base, described.inherited))  # noqa: B010
        for subclass in _subclasses(base):
            _wrap_methods(subclass, described.inherited)


def _subclasses(base: type) -> list[type]:
    found: list[type] = []
    pending: list[type] = list(type.__subclasses__(base))
    while pending:
        subclass = pending.pop()
        if subclass not in found:
            found.append(subclass)
            pending.extend(type.__subclasses__(subclass))
    return found


def _subclass_hook(base: type[Any], names: Sequence[str]) -> Any:
    def __init_subclass__(cls: type[Any], /, **kwargs: Any) -> None:
        super(base, cls).__init_subclass__(**kwargs)
        _wrap_methods(cls, names)

    setattr(__init_subclass__, _GUARDED, True)
    return classmethod(__init_subclass__)


def _wrap_methods(cls: type, names: Sequence[str]) -> None:
    for name in names:
        original = cls.__dict__.get(name)
        if isinstance(original, FunctionType) and not getattr(original, _GUARDED, False):
            setattr(cls, name, _guarded(original))


def _guarded(original: Callable[..., Any]) -> Callable[..., Any]:
    import inspect  # loaded by LangChain already, whenever there is a model to wrap

    if inspect.iscoroutinefunction(original):
        return _guarded_coroutine(original)

    @functools.wraps(original)
    def guarded(self: object, *args: Any, **kwargs: Any) -> Any:
        check_model(self)
        return original(self, *args, **kwargs)

    setattr(guarded, _GUARDED, True)
    return guarded


def _guarded_coroutine(original: Callable[..., Any]) -> Callable[..., Any]:
    """An ``async def`` stays one (LangChain and agents tell sync from async by it)."""

    @functools.wraps(original)
    async def guarded(self: object, *args: Any, **kwargs: Any) -> Any:
        check_model(self)
        return await original(self, *args, **kwargs)

    setattr(guarded, _GUARDED, True)
    return guarded


class _PatchOnImport:
    """Meta-path finder: lets the usual finders locate the chat-model module, and has it
    patched right after it executes."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in _BY_MODULE:
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
