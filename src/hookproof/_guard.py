"""The real-model guard: while it is on, only models declared offline run, and no connection
leaves the machine unless the test allows its host.

Two lines of defence, both off until ``block_real_models()`` first turns the guard on:

1. models: hookproof's runtime, Eino dialect and recording models call ``check_model``; every
   LangChain ``BaseChatModel`` is checked in its base class (see ``_guard_langchain``);
2. sockets: a connection to a host off the machine is refused (see ``_guard_socket``).

A model is offline when its class says ``hookproof_offline = True`` (hookproof's scripted and
recording models do), or when it is one of langchain-core's fake chat models, which answer
from the lists they are given. The pytest plugin turns the guard on around each phase of
every test (setup, call, teardown) unless the test opts out with
``@pytest.mark.hookproof(allow_real_models=True)``.

Every refusal is also recorded in the ``block_real_models`` block it happened in (the block
yields the list), so a refusal the code under test caught (a fallback model, a retry loop, an
``except`` clause) is still seen: the plugin fails the phase with ``swallowed_message``.
Kept free of heavy imports: the plugin loads it for every test.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from hookproof.errors import RealModelBlocked, UsageError

__all__ = [
    "GuardPolicy",
    "RealModelBlocked",
    "block_real_models",
    "check_model",
    "current_policy",
    "is_offline",
    "record_refusal",
    "swallowed_message",
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
# the previous policy and refusal list after each phase of each test.
_policy = GuardPolicy()
_refusals: list[str] = []
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
        raise record_refusal(RealModelBlocked(_blocked_model_message(model)))


def record_refusal(error: RealModelBlocked) -> RealModelBlocked:
    """Note ``error`` in the current block's refusals (from any thread) and return it."""
    with _LOCK:
        _refusals.append(str(error))
    return error


@contextmanager
def block_real_models(
    active: bool = True, *, allow_hosts: Iterable[str] = ()
) -> Iterator[list[str]]:
    """Turn the guard on (or off) for the code inside the ``with`` block; ``allow_hosts``
    names the hosts (names, IP addresses or networks such as ``10.0.0.0/8``) sockets may
    still connect to. Yields the messages of the refusals made inside the block (a nested
    block keeps its own), in order."""
    global _policy, _refusals
    if active:
        _install_guards()
    policy = GuardPolicy(active, _allowed(allow_hosts))
    refusals: list[str] = []
    with _LOCK:
        previous = _policy, _refusals
        _policy, _refusals = policy, refusals
    try:
        yield refusals
    finally:
        with _LOCK:
            _policy, _refusals = previous


def _allowed(hosts: Iterable[str]) -> frozenset[str]:
    from hookproof._guard_socket import allowed_host_problem

    entries = frozenset(host.lower() for host in hosts)
    for entry in sorted(entries):
        problem = allowed_host_problem(entry)
        if problem is not None:
            raise UsageError(f"hookproof: the allow_hosts entry {entry!r} {problem}")
    return entries


def swallowed_message(phase: str, refusals: Sequence[str]) -> str:
    """Why a phase that caught a refusal fails, quoting the first refusal."""
    more = f" (and {len(refusals) - 1} more)" if len(refusals) > 1 else ""
    return (
        f"hookproof: during the test's {phase}, a real model call or connection was refused "
        f"and the error was caught by the code under test{more}. The {phase} went on as if "
        "nothing had happened (a fallback model, a retry loop or an `except` clause took the "
        "error), so the test could pass without running what it meant to. Fix the refusal "
        f"quoted here, the first one:\n\n{refusals[0]}"
    )


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
