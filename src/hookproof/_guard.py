"""The real-model guard: while it is on, only models declared offline run, and no connection
leaves the machine unless the test allows its host.

Two lines of defence, both off until ``block_real_models()`` first turns the guard on:

1. models: hookproof's runtime, Eino dialect and recording models call ``check_model``; every
   LangChain ``BaseChatModel`` is checked in its base class (see ``_guard_langchain``);
2. sockets: a connection to a host that is not loopback is refused (see ``_guard_socket``).

A model is offline when its class says ``hookproof_offline = True`` (hookproof's scripted and
recording models do), or when it is one of langchain-core's fake chat models, which answer
from the lists they are given. The pytest plugin turns the guard on for every test unless
the test opts out with ``@pytest.mark.hookproof(allow_real_models=True)``. Kept free of
heavy imports: the plugin loads it for every test.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from hookproof.errors import RealModelBlocked

__all__ = [
    "GuardPolicy",
    "RealModelBlocked",
    "block_real_models",
    "check_model",
    "current_policy",
    "is_offline",
]

_LANGCHAIN_CHAT_MODELS = "langchain_core.language_models.chat_models"
_LANGCHAIN_FAKES = "langchain_core.language_models.fake_chat_models"


@dataclass(frozen=True)
class GuardPolicy:
    """What the guard enforces right now (replaced whole, never changed in place)."""

    blocking: bool = False
    allow_hosts: frozenset[str] = frozenset()


# Process-wide on purpose: a model called from a thread the test started must be blocked too.
# pytest runs one test at a time per process (xdist uses processes), and the plugin restores
# the previous policy after each test.
_policy = GuardPolicy()
_LOCK = threading.Lock()


def current_policy() -> GuardPolicy:
    return _policy


def is_offline(model: object) -> bool:
    model_type = type(model)
    return getattr(model_type, "hookproof_offline", False) is True or any(
        base.__module__ == _LANGCHAIN_FAKES for base in model_type.__mro__
    )


def check_model(model: object) -> None:
    """Raise RealModelBlocked if the guard is on and ``model`` is not declared offline."""
    if _policy.blocking and not is_offline(model):
        raise RealModelBlocked(_blocked_model_message(model))


@contextmanager
def block_real_models(active: bool = True, *, allow_hosts: Iterable[str] = ()) -> Iterator[None]:
    """Turn the guard on (or off) for the code inside the ``with`` block; ``allow_hosts``
    names the hosts (names or IP addresses) sockets may still connect to."""
    global _policy
    if active:
        _install_guards()
    policy = GuardPolicy(active, frozenset(host.lower() for host in allow_hosts))
    with _LOCK:
        previous, _policy = _policy, policy
    try:
        yield
    finally:
        with _LOCK:
            _policy = previous


def _install_guards() -> None:
    from hookproof import _guard_langchain, _guard_socket

    _guard_langchain.install()
    _guard_socket.install()


def _is_langchain_model(model: object) -> bool:
    return any(
        base.__name__ == "BaseChatModel" and base.__module__ == _LANGCHAIN_CHAT_MODELS
        for base in type(model).__mro__
    )


def _model_label(model: object) -> str:
    for attribute in ("name", "model_name", "model"):
        value = getattr(model, attribute, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


def _blocked_model_message(model: object) -> str:
    kind = type(model).__name__
    if _is_langchain_model(model):
        replacement = (
            "ScriptedChatModel or RecordingChatModel (over a ScriptedChatModel) from "
            "hookproof.adapters.langchain"
        )
        marking = f"`hookproof_offline: ClassVar[bool] = True` on {kind}"
    else:
        replacement = "ScriptedModel or RecordingModel (over a ScriptedModel) from hookproof.models"
        marking = f"`hookproof_offline = True` on {kind}"
    return (
        f"hookproof: the test called model {_model_label(model)!r} ({kind}), which is not "
        "declared offline and may reach a real provider. hookproof blocks real model calls "
        f"in tests: they are slow, cost money and are not deterministic. Use {replacement}; "
        f"if {kind} never leaves the machine, declare it with {marking}; to let this test "
        "call real models, mark it @pytest.mark.hookproof(allow_real_models=True), or run "
        "with --hookproof-allow-real-models."
    )
