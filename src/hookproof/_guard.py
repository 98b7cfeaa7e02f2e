"""The real-model guard: inside tests, only models that declare themselves offline may run.

hookproof's ScriptedModel and RecordingModel (over an offline model) set
``hookproof_offline = True``. The pytest plugin turns the guard on for every test unless the
test opts out with ``@pytest.mark.hookproof(allow_real_models=True)``. Kept free of heavy
imports: the plugin loads it for every test.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from hookproof.errors import HookproofError

__all__ = ["RealModelBlocked", "block_real_models", "check_model", "is_offline"]

# Process-wide on purpose: a model called from a thread the test started must be blocked too.
# pytest runs one test at a time per process (xdist uses processes), and the plugin restores
# the previous value after each test.
_STATE = {"blocking": False}
_LOCK = threading.Lock()


class RealModelBlocked(HookproofError):
    """A model that may reach a real provider was called while the guard was on."""


def is_offline(model: object) -> bool:
    return getattr(type(model), "hookproof_offline", False) is True


def check_model(model: object) -> None:
    """Raise RealModelBlocked if the guard is on and ``model`` is not declared offline."""
    if _STATE["blocking"] and not is_offline(model):
        name = getattr(model, "name", None) or type(model).__name__
        raise RealModelBlocked(
            f"hookproof: the test called model {name!r} ({type(model).__name__}), which may "
            "reach a real provider; hookproof blocks real model calls in tests so they stay "
            "deterministic and free. Use ScriptedModel / RecordingModel, or opt this test in "
            "with @pytest.mark.hookproof(allow_real_models=True)."
        )


@contextmanager
def block_real_models(active: bool = True) -> Iterator[None]:
    """Turn the guard on (or off) for the code inside the ``with`` block."""
    with _LOCK:
        previous, _STATE["blocking"] = _STATE["blocking"], active
    try:
        yield
    finally:
        with _LOCK:
            _STATE["blocking"] = previous
