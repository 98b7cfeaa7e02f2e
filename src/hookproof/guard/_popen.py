"""``subprocess.Popen`` given an ``env=`` of its own gets the guard's variables added, so the
child it starts is guarded as one started with this process's environment would be.
Kept free of heavy imports (no ``typing``): every guarded child imports it at start-up.
"""

from __future__ import annotations

import os
import threading

from hookproof.guard._channel import PYTHONPATH, RECORDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from collections.abc import MutableMapping
    from typing import Any

__all__ = ["install"]

_VARIABLES = (RECORDS, PYTHONPATH)
_GUARDED = "_hookproof_guarded"
_LOCK = threading.Lock()


def install() -> None:
    """Idempotent and thread-safe: wraps ``Popen.__init__`` once per process."""
    import subprocess

    with _LOCK:
        current = subprocess.Popen.__init__
        if not getattr(current, _GUARDED, False):
            setattr(subprocess.Popen, "__init__", _guarded_popen_init(current))  # noqa: B010


def _guarded_popen_init(original: Any) -> Any:
    def __init__(self: subprocess.Popen[Any], *args: Any, **kwargs: Any) -> None:
        env = kwargs.get("env")
        if env is not None and os.environ.get(RECORDS):
            kwargs["env"] = _with_guard(env)
        original(self, *args, **kwargs)

    setattr(__init__, _GUARDED, True)
    __init__.__wrapped__ = original  # type: ignore[attr-defined]
    return __init__


def _with_guard(env: MutableMapping[Any, Any]) -> dict[Any, Any]:
    given = dict(env)
    key: Any = b"" if any(isinstance(name, bytes) for name in given) else ""
    for name in _VARIABLES:
        value = os.environ.get(name)
        if name == PYTHONPATH:
            value = _prepended(os.environ.get(PYTHONPATH, ""), given, key)
        if value is not None:
            given[_typed(key, name)] = _typed(key, value)
    return given


def _prepended(ours: str, given: dict[Any, Any], key: Any) -> str:
    bootstrap = ours.split(os.pathsep)[0]
    theirs = given.get(_typed(key, PYTHONPATH))
    theirs = os.fsdecode(theirs) if theirs is not None else ""
    return os.pathsep.join(part for part in (bootstrap, theirs) if part)


def _typed(key: Any, text: str) -> Any:
    return os.fsencode(text) if isinstance(key, bytes) else text


def _new_lock_after_fork() -> None:
    """A forked child may inherit the lock held by a thread that no longer exists."""
    global _LOCK
    _LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_after_fork)
