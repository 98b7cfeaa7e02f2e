"""Whether a model's ``ainvoke`` only calls its ``invoke``: then, below a sync wrap hook under
``ainvoke()``, the engine calls ``invoke`` on the hook's helper thread instead of going back
to the event loop (see ``hookproof._engine.threaded``)."""

from __future__ import annotations

from typing import Any

__all__ = ["FLAG", "answers_synchronously"]

FLAG = "hookproof_sync_ainvoke"


def answers_synchronously(model: Any) -> bool:
    """A model with no ``ainvoke``, or one whose class says ``hookproof_sync_ainvoke`` next to
    the ``ainvoke`` it still uses: a subclass that overrides ``ainvoke`` (or a proxy handing
    the flag on by ``__getattr__``) is awaited as its ``ainvoke`` says."""
    kind = type(model)
    ainvoke = getattr(kind, "ainvoke", None)
    if ainvoke is None and getattr(model, "ainvoke", None) is None:
        return True
    if FLAG in vars(kind):  # the usual case (the model's own class says it): no MRO walk
        declaring: type | None = kind
    else:
        declaring = next((k for k in kind.__mro__ if FLAG in vars(k)), None)
    if declaring is None or ainvoke is not vars(declaring).get("ainvoke"):
        return False
    return getattr(model, FLAG, False) is True
