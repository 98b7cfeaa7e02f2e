"""The state an object holds, as a comparable print: what a reused build must still hold
after a run, or it is not the build it was.

``state_print(root, ignored)`` walks everything reachable from ``root`` that a run
could change in place: instance attributes (``__dict__`` and slots), the items of lists,
tuples, sets, dicts and deques, function closures and defaults, bound methods' ``self`` and
``functools.partial``'s parts, a suspended generator's position and locals. An object of a
type it cannot open is compared by its ``repr`` and by what pickling it would save (an
iterator's position is there), and so is an object whose class builds on a C type that
keeps state of its own beside the attributes (``random.Random``'s generator state,
``io.StringIO``'s text, a ``str`` subclass's value); an ``lru_cache`` by its counts when it
is empty or an installed library's, and as matching nothing when it is the application's
and holds entries (they are out of reach, and a run may change a cached value in place); a
thread pool by whether it still takes work and by its attributes but its workers. Modules,
classes and code are compared by identity: what a run changes there, a fresh build shares
too. Two prints are equal when the same objects hold the same values in the same places.

``ignored(owner, name)`` says which attributes (or keys of a dict an attribute holds) are
pure memos, the same on any build, which a run may fill. When it has an attribute ``names``
(a frozenset), it is true only for those names, and the print asks it about those alone
(not about every attribute of every object it walks).
"""

from __future__ import annotations

import collections
import functools
import os
import sys
import sysconfig
import types
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

__all__ = ["first_difference", "state_print"]

Ignored = Callable[[Any, str], bool]
_ATOMS = (type(None), bool, int, float, complex, str, bytes)
_BY_IDENTITY = (
    types.ModuleType,
    type,
    types.CodeType,
    types.BuiltinFunctionType,
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
    types.GetSetDescriptorType,
    types.MemberDescriptorType,
    types.FrameType,
)
_SEQUENCES = (list, tuple, collections.deque, set, frozenset)
_ATOM_KINDS = frozenset(_ATOMS)


def state_print(root: Any, ignored: Ignored) -> list[Any]:
    """The print of ``root``'s state (see the module): the items ``first_difference``'s walk
    yields, in its order, without their paths (a loop of its own: a reused build is printed
    after every run, so this is the hot path)."""
    printed: list[Any] = []
    seen: dict[int, int] = {}
    keep_alive: list[Any] = []  # ids stay unique while the print holds what it saw
    stack: list[Any] = [root]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            printed.append(item)
        elif kind in _ATOM_KINDS:
            printed.append((kind, item))
        elif (key := id(item)) in seen:
            printed.append(("seen", seen[key]))
        elif isinstance(item, _BY_IDENTITY):
            printed.append(("identity", key))
        else:
            seen[key] = len(seen)
            keep_alive.append(item)
            shape, values = _values(item, kind, ignored)
            printed.append(shape)
            values.reverse()
            stack += values
    return printed


def _values(item: Any, kind: type, ignored: Ignored) -> tuple[Any, list[Any]]:
    """``_parts(item, ignored)`` without the labels; plain dicts, lists and tuples (which
    hold neither attributes nor slots) read directly."""
    if kind is dict:
        keys = [key for key in item if type(key) not in _ATOM_KINDS]
        return (kind, tuple(item)), keys + list(item.values())
    if kind is list or kind is tuple:
        return (kind, len(item)), list(item)
    shape, parts = _parts(item, ignored)
    return shape, [value for _, _, value in parts]


def first_difference(before: list[Any], root: Any, ignored: Ignored) -> str:
    """Where ``root``'s state now first differs from ``before`` (its print taken earlier): a
    path such as ``.middleware[1].__dict__['calls']``, or "" when it holds the same."""
    walked, index = _walk(root, ignored, with_paths=True), -1
    for index, (path, item) in enumerate(walked):
        if index >= len(before) or item != before[index]:
            return path or "the object itself"
    return "" if index + 1 == len(before) else "something it held before, now gone"


def _walk(root: Any, ignored: Ignored, *, with_paths: bool) -> Iterator[tuple[str, Any]]:
    seen: dict[int, int] = {}
    keep_alive: list[Any] = []  # ids stay unique while the walk holds what it saw
    stack: list[Any] = [root]
    paths: list[str] = [""]  # each item's path, when asked for
    while stack:
        item = stack.pop()
        path = paths.pop() if with_paths else ""
        kind = type(item)
        if kind is str:
            yield path, item
            continue
        if kind in _ATOMS:
            yield path, (kind, item)
            continue
        key = id(item)
        if key in seen:
            yield path, ("seen", seen[key])
            continue
        if isinstance(item, _BY_IDENTITY):
            yield path, ("identity", key)
            continue
        seen[key] = len(seen)
        keep_alive.append(item)
        shape, parts = _parts(item, ignored)
        yield path, shape
        parts.reverse()
        stack += [value for _, _, value in parts]
        if with_paths:
            paths += [path + label % (arg,) for label, arg, _ in parts]


Part = tuple[str, Any, Any]  # a label template, its argument, the part


def _parts(item: Any, ignored: Ignored) -> tuple[Any, list[Part]]:
    """What ``item`` is (its type, size, keys) and the parts it holds, labelled."""
    shape: Any = type(item)
    if _is_plain(shape):  # most objects: only attributes or slots (the branches below agree)
        attributes = _attributes(item, ignored)
        if attributes is None:
            return (shape, "repr", repr(item)), _reduced(item)
        return shape, (_reduced(item) + attributes if _keeps_native_state(shape) else attributes)
    parts: list[Part] = []
    if isinstance(item, ThreadPoolExecutor):
        return _pool(item), [(".%s", "__dict__", _pool_attributes(item))]
    if isinstance(item, dict):
        shape = (shape, tuple(item))
        parts += [("<key %.40r>", key, key) for key in item if type(key) not in _ATOMS]
        parts += [("[%.40r]", key, value) for key, value in item.items()]
    elif isinstance(item, _SEQUENCES):
        shape = (shape, len(item))
        parts += [("[%d]", index, value) for index, value in enumerate(item)]
    elif isinstance(item, types.FunctionType):
        parts += [(".%s", "__code__", item.__code__), (".%s", "__defaults__", item.__defaults__)]
        parts += [(".%s", "__kwdefaults__", item.__kwdefaults__)]
        cells = enumerate(item.__closure__ or ())
        parts += [(".<cell %d>", index, _cell(cell)) for index, cell in cells]
    elif isinstance(item, types.MethodType):
        parts += [(".%s", "__self__", item.__self__), (".%s", "__func__", item.__func__)]
    elif isinstance(item, functools.partial):
        parts += [(".%s", "func", item.func), (".%s", "args", item.args)]
        parts += [(".%s", "keywords", item.keywords)]
    elif isinstance(item, _GENERATORS):
        shape, parts = _suspended(item)
    elif isinstance(item, _LRU_CACHE):
        shape = _cache(item)
    attributes = _attributes(item, ignored)
    if not parts and shape is type(item):
        if attributes is None:
            return (shape, "repr", repr(item)), _reduced(item)
        if _keeps_native_state(shape):
            parts = _reduced(item)
    return shape, parts + (attributes or [])


_GENERATORS = (types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)
_LRU_CACHE = type(functools.lru_cache(maxsize=None)(len))
# the kinds ``_parts`` opens in a way of their own; an instance of any other class is plain
_OPENED = (
    ThreadPoolExecutor,
    dict,
    *_SEQUENCES,
    types.FunctionType,
    types.MethodType,
    functools.partial,
    *_GENERATORS,
    _LRU_CACHE,
)
_PLAIN: dict[type, bool] = {}


def _is_plain(cls: type) -> bool:
    known = _PLAIN.get(cls)
    if known is None:
        known = _PLAIN[cls] = not issubclass(cls, _OPENED)
    return known


def _suspended(item: Any) -> tuple[Any, list[Part]]:
    """A generator's (or coroutine's) print: where it stands and its locals (a run that
    advances it leaves a later run a different one than a fresh build's)."""
    frame = getattr(item, "gi_frame", None) or getattr(item, "cr_frame", None)
    frame = frame or getattr(item, "ag_frame", None)
    if frame is None:  # finished (or running: then the next print differs)
        return (type(item), "frame", None), []
    locals_ = list(frame.f_locals.items())
    return (type(item), "frame", frame.f_lasti), [(".<local %s>", k, v) for k, v in locals_]


_WALKED_BASES = (dict, list, tuple, set, frozenset, collections.deque)
_NATIVE: dict[type, bool] = {}


def _keeps_native_state(cls: type) -> bool:
    """Whether instances of ``cls`` hold state in a C base's own layout, beside their
    attributes and slots (one the walk does not open already)."""
    known = _NATIVE.get(cls)
    if known is None:
        base = next((k for k in cls.__mro__ if _adds_layout(k)), object)
        known = _NATIVE[cls] = base is not object and not issubclass(base, _WALKED_BASES)
    return known


def _adds_layout(klass: type) -> bool:
    """Whether ``klass`` is a C type adding fields to its base's (CPython's "solid base"
    test; a Python class adds only its slots and its dict and weakref pointers)."""
    base = klass.__base__
    if base is None or "__slots__" in klass.__dict__:
        return False
    size, pointer = klass.__basicsize__, _POINTER
    if klass.__weakrefoffset__ and not base.__weakrefoffset__:
        size -= pointer
    if klass.__dictoffset__ > 0 and not base.__dictoffset__:
        size -= pointer
    return size != base.__basicsize__ or klass.__itemsize__ != base.__itemsize__


_POINTER = tuple.__itemsize__  # the size of one object pointer


def _pool(pool: ThreadPoolExecutor) -> tuple[Any, ...]:
    """A thread pool's print: whether it still takes work. Which worker threads it has
    started (a run that used it started some) decides when work runs, never what it
    returns; a pool shut down or broken makes every later use fail, so that shows."""
    return (type(pool), "pool", getattr(pool, "_shutdown", None), getattr(pool, "_broken", None))


# a thread pool's workers and their hand-off: which threads a run started (see _pool)
_POOL_WORKERS = frozenset(
    {"_threads", "_idle_semaphore", "_work_queue", "_shutdown_lock", "_shutdown", "_broken"}
)


def _pool_attributes(pool: ThreadPoolExecutor) -> dict[str, Any]:
    """The pool's attributes but its workers' (its initializer, a subclass's own state)."""
    return {k: v for k, v in vars(pool).items() if k not in _POOL_WORKERS}


def _cache(cache: Any) -> tuple[Any, ...]:
    """An ``lru_cache``'s print. Its entries are out of reach, so an application's cache
    holding any cannot be vouched for (a run may have changed a cached value in place): its
    print then matches no other, and a build holding it is not reused. An installed
    library's cache (``typing``'s, say) is shared by every build, as a module global is."""
    info = cache.cache_info()
    if info.currsize and not _installed(getattr(cache, "__wrapped__", None)):
        return (type(cache), "cache with entries it cannot show", _Unmatched())
    return (type(cache), "cache", info.currsize, info.misses)


_INSTALLED_MODULES: dict[str, bool] = {}


def _installed(function: Any) -> bool:
    """Whether ``function`` comes from the standard library or an installed package (not
    from the application's own source tree)."""
    name = getattr(function, "__module__", None)
    if not isinstance(name, str):
        return False
    known = _INSTALLED_MODULES.get(name)
    if known is None:
        file = getattr(sys.modules.get(name), "__file__", None)
        roots = {sysconfig.get_path(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")}
        known = _INSTALLED_MODULES[name] = isinstance(file, str) and any(
            os.path.realpath(file).startswith(os.path.realpath(root) + os.sep) for root in roots
        )
    return known


class _Unmatched:
    """Equal to nothing, itself included: what the print cannot vouch for."""

    def __eq__(self, other: object) -> bool:
        return False

    def __ne__(self, other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "<unknown>"


def _reduced(item: Any) -> list[Part]:
    """What pickling ``item`` would save, where it can (an iterator's position is there,
    not in its ``repr``); [] for what cannot be pickled."""
    try:
        saved = item.__reduce_ex__(4)
    except Exception:  # noqa: BLE001 - a lock or a generator: its repr is all there is
        return []
    return [(".%s", "<pickled>", saved[1:] if isinstance(saved, tuple) else saved)]


def _attributes(item: Any, ignored: Ignored) -> list[Part] | None:
    """``item``'s instance attributes and slots (None: it has neither); the ignored ones
    left out, also from a dict a slot holds (pydantic keeps private attributes so)."""
    found: list[Part] = []
    names = _candidates(ignored)
    own = getattr(item, "__dict__", None)
    has_any = isinstance(own, dict)
    if isinstance(own, dict):
        found.append((".%s", "__dict__", _kept(item, own, ignored, names)))
    for name in _slots(type(item)):
        has_any = True
        if (names is not None and name not in names) or not ignored(item, name):
            value = getattr(item, name, _Unset)
            found.append((".%s", name, _kept(item, value, ignored, names)))
    return found if has_any else None


def _candidates(ignored: Ignored) -> frozenset[str] | None:
    """The only names ``ignored`` may be true for, when it says so (see the module)."""
    names = getattr(ignored, "names", None)
    return names if isinstance(names, frozenset) else None


def _kept(owner: Any, value: Any, ignored: Ignored, names: frozenset[str] | None) -> Any:
    """``value``, or a copy of the dict without the keys ``ignored`` says of ``owner``."""
    if type(value) is not dict:
        return value
    if names is not None:  # asked about its names alone
        dropped = [name for name in names if name in value and ignored(owner, name)]
        return {k: v for k, v in value.items() if k not in dropped} if dropped else value
    if not any(isinstance(k, str) and ignored(owner, k) for k in value):
        return value
    return {k: v for k, v in value.items() if not (isinstance(k, str) and ignored(owner, k))}


_SLOTS: dict[type, tuple[str, ...]] = {}


def _slots(cls: type) -> tuple[str, ...]:
    known = _SLOTS.get(cls)
    if known is not None:
        return known
    names: list[str] = []
    for klass in cls.__mro__:
        declared = klass.__dict__.get("__slots__", ())
        for name in (declared,) if isinstance(declared, str) else declared:
            if name not in ("__dict__", "__weakref__") and name not in names:
                names.append(name)
    _SLOTS[cls] = found = tuple(names)
    return found


def _cell(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return _Unset


class _Unset:
    """An unset slot or an empty closure cell (compared by identity: a class)."""
