"""The real-model guard: while it is on, only models declared offline run, and no connection
leaves the machine unless the test allows its host.

Two lines of defence, both off until ``block_real_models()`` first turns the guard on:

1. models: hookproof's runtime, Eino dialect and recording models call ``check_model``; every
   LangChain chat model, completion model and embeddings is checked in its base class and in
   the methods its subclasses define (``_langchain``);
2. sockets: a connection to a host off the machine is refused (``_socket``).

Both reach the Python child processes started inside a block (``_channel``, ``child``). The
pytest plugin turns the guard on around each phase of every test (setup, call, teardown)
unless the test opts out with ``@pytest.mark.hookproof(allow_real_models=True)``; a refusal
the code under test caught still fails the phase (``swallowed_message``), and
``expect_blocked()`` is the block a test opens to expect a refusal.

The modules depend downward only: ``_policy`` (what is enforced) <- ``_channel`` (the files a
child reads its parent's policy from and writes its refusals to) <- ``_state`` (the policy in
force, the refusals) <- ``_models``, ``_socket`` <- ``_langchain`` <- ``_block`` <- ``child``.
Kept free of heavy imports (no ``typing``, no ``dataclasses``): the plugin and every guarded
child load it.
"""

from __future__ import annotations

from hookproof._support import lazy as _lazy

TYPE_CHECKING = False  # typing itself costs the import several ms; mypy sees True
if TYPE_CHECKING:
    from hookproof.errors import RealModelBlocked
    from hookproof.guard._block import (
        GuardHandle,
        block_real_models,
        expect_blocked,
        swallowed_message,
    )
    from hookproof.guard._hosts import allowed_host_problem
    from hookproof.guard._models import check_model, is_offline
    from hookproof.guard._policy import GuardPolicy
    from hookproof.guard._state import allow_model, current_policy

__all__ = [
    "GuardHandle",
    "GuardPolicy",
    "RealModelBlocked",
    "allow_model",
    "allowed_host_problem",
    "block_real_models",
    "check_model",
    "current_policy",
    "expect_blocked",
    "is_offline",
    "swallowed_message",
]

# Loaded on first use: the engine checks every model it calls (``check_model``) without
# loading the blocks and host checks only a guarded test needs.
_ORIGINS = _lazy.origins(
    {
        "hookproof.errors": ("RealModelBlocked",),
        "hookproof.guard._block": (
            "GuardHandle",
            "block_real_models",
            "expect_blocked",
            "swallowed_message",
        ),
        "hookproof.guard._hosts": ("allowed_host_problem",),
        "hookproof.guard._models": ("check_model", "is_offline"),
        "hookproof.guard._policy": ("GuardPolicy",),
        "hookproof.guard._state": ("allow_model", "current_policy"),
    }
)
__getattr__, __dir__ = _lazy.exports(globals(), _ORIGINS)
