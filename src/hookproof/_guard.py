"""The real-model guard: while it is on, only models declared offline run, and no connection
leaves the machine unless the test allows its host.

Two lines of defence, both off until ``block_real_models()`` first turns the guard on:

1. models: hookproof's runtime, Eino dialect and recording models call ``check_model``; every
   LangChain chat model, completion model and embeddings is checked in its base class and in
   the methods its subclasses define (see ``_guard_langchain``);
2. sockets: a connection to a host off the machine is refused (see ``_guard_socket``).

Both reach the Python child processes started inside a block (see ``_guard_child``).
A model is offline when its class says ``hookproof_offline = True`` (hookproof's scripted and
recording models do), or when it is one of langchain-core's fakes, which answer from the
lists they are given. The pytest plugin turns the guard on around each phase of
every test (setup, call, teardown) unless the test opts out with
``@pytest.mark.hookproof(allow_real_models=True)``.

Every refusal is also recorded in the ``block_real_models`` block it happened in (the block
yields the list), so a refusal the code under test caught (a fallback model, a retry loop, an
``except`` clause) is still seen: the plugin fails the phase with ``swallowed_message``;
``expect_blocked()`` is the block a test opens to expect a refusal. Kept free of heavy
imports (no ``typing``, no ``dataclasses``): the plugin and every guarded child load it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager

from hookproof.errors import NothingBlocked, RealModelBlocked, UsageError

__all__ = [
    "GuardHandle",
    "GuardPolicy",
    "RealModelBlocked",
    "allow_model",
    "block_real_models",
    "check_model",
    "child_records",
    "current_policy",
    "expect_blocked",
    "follow_parent",
    "is_offline",
    "record_refusal",
    "swallowed_message",
]

_LANGCHAIN_FAKES = (
    "langchain_core.language_models.fake_chat_models",
    "langchain_core.language_models.fake",
    "langchain_core.embeddings.fake",
)


class GuardPolicy:
    """What the guard enforces right now (replaced whole, never changed in place). Not a
    dataclass: every Python child process of a guarded test imports this module first."""

    __slots__ = ("allow_hosts", "blocking")

    def __init__(self, blocking: bool = False, allow_hosts: frozenset[str] = frozenset()):
        self.blocking = blocking
        self.allow_hosts = allow_hosts

    def _key(self) -> tuple[bool, frozenset[str]]:
        return self.blocking, self.allow_hosts

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GuardPolicy) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"GuardPolicy(blocking={self.blocking}, allow_hosts={sorted(self.allow_hosts)})"


# Process-wide on purpose: a model called from a thread the test started must be blocked too.
# pytest runs one test at a time per process (xdist uses processes), and the plugin restores
# the previous policy and refusal list after each phase of each test.
_policy = GuardPolicy()
# In a child process started from a test: the policy is whatever the parent's is right now.
_FOLLOW_PARENT = GuardPolicy(True)
_refusals: list[str] = []
_LOCK = threading.Lock()
_child_records: str | None = None  # in a child process: where its refusals go
# Models a caller may run although they are not offline (a recording cassette's inner model).
_allowed_models: list[int] = []


def current_policy() -> GuardPolicy:
    policy = _policy
    if policy is _FOLLOW_PARENT:
        from hookproof._guard_child import parent_policy

        return parent_policy()
    return policy


def child_records() -> str | None:
    """In a child process started from a test: where its refusals go."""
    return _child_records


def is_offline(model: object) -> bool:
    model_type = type(model)
    return getattr(model_type, "hookproof_offline", False) is True or any(
        base.__module__ in _LANGCHAIN_FAKES for base in model_type.__mro__
    )


def check_model(model: object) -> None:
    """Raise RealModelBlocked if the guard is on and ``model`` is not declared offline."""
    blocking = current_policy().blocking
    if blocking and not is_offline(model) and id(model) not in _allowed_models:
        raise record_refusal(RealModelBlocked(_blocked_model_message(model)))


@contextmanager
def allow_model(model: object) -> Iterator[None]:
    """Let ``model`` itself run while the block is open (from any thread: a stream is
    consumed wherever its reader is): for a wrapper that is offline and calls the model it
    wraps only when it should, as a recording cassette."""
    with _LOCK:
        _allowed_models.append(id(model))
    try:
        yield
    finally:
        with _LOCK:
            _allowed_models.remove(id(model))


def record_refusal(error: RealModelBlocked) -> RealModelBlocked:
    """Note ``error`` in the current block's refusals (from any thread) and return it; in a
    child process, also where the parent's block reads it."""
    with _LOCK:
        _refusals.append(str(error))
    if _child_records is not None:
        from hookproof._guard_child import write_record

        write_record(_child_records, str(error))
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
    from hookproof import _guard_child

    if active:
        _install_guards()
    policy = GuardPolicy(active, _allowed(allow_hosts))
    refusals: list[str] = []
    with _LOCK:
        previous = _policy, _refusals
        _policy, _refusals = policy, refusals
    _guard_child.publish(policy)
    environment = _guard_child.apply(_guard_child.child_environment())
    try:
        yield refusals
    finally:
        _guard_child.apply(environment)
        with _LOCK:
            if active:  # what children refused (and caught) belongs to this block
                refusals.extend(_guard_child.collect())
            _policy, _refusals = previous
        _guard_child.publish(current_policy())


def follow_parent(records: str | None) -> None:
    """Outside any block, this process's guard is its parent's, whatever the parent's is at
    the moment (a child process started from a test; refusals go to ``records``); or, with
    None, the process's own again (a pytest session in such a child takes over)."""
    global _policy, _child_records
    if records is not None:
        _install_guards()
    with _LOCK:
        _policy = GuardPolicy() if records is None else _FOLLOW_PARENT
        _child_records = records


@contextmanager
def expect_blocked() -> Iterator[list[str]]:
    """A block in which the code under test must be refused: it passes only if a refusal
    happened inside it (in this process or a child), and then absorbs the refusal and the
    error it raised (a RealModelBlocked, or one raised because of it, but never a failed
    ``assert``). Yields the messages."""
    __tracebackhide__ = True
    policy = current_policy()
    if not policy.blocking:
        raise UsageError(_EXPECTED_WITHOUT_GUARD)
    with block_real_models(allow_hosts=policy.allow_hosts) as refusals:
        try:
            yield refusals
        except Exception as error:  # re-raised below unless it came from a refusal
            if not _caused_by_refusal(error):
                raise
    if not refusals:
        raise NothingBlocked(_NOTHING_BLOCKED)


class GuardHandle:
    """What the ``hookproof_guard`` fixture gives a test: the guard in force, and
    ``expect_blocked()`` to prove that the code in a block is refused."""

    __test__ = False

    @property
    def policy(self) -> GuardPolicy:
        return current_policy()

    def expect_blocked(self) -> AbstractContextManager[list[str]]:
        return expect_blocked()


def _caused_by_refusal(error: BaseException | None) -> bool:
    """Whether ``error`` was raised because of a refusal. A failed ``assert`` never is: it is
    the test's own verdict, even when it is made while handling the refusal."""
    if isinstance(error, AssertionError):
        return False
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, RealModelBlocked):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


_EXPECTED_WITHOUT_GUARD = (
    "hookproof: expect_blocked() was used while the real-model guard is off (the test opts "
    "out with allow_real_models=True, or the run with --hookproof-allow-real-models). The "
    "block would run the real model instead of proving it is refused. Remove the opt-out "
    "from this test, or drop the expect_blocked() block."
)
_NOTHING_BLOCKED = (
    "hookproof: nothing was refused inside expect_blocked(): no model that is not offline "
    "was called and no connection off the machine was tried there. The test expects the "
    "real-model guard to refuse the code in the block, so passing would prove nothing. Check "
    "that the block runs the call you meant (the production model, not a scripted one), or "
    "remove the block."
)


def _forked_child() -> None:
    """A forked child of a process that opened blocks follows that process's guard from
    now on (a pool worker lives on into other tests), and its refusals go where the parent
    reads them; a child of a fork server follows already."""
    global _LOCK, _child_records, _policy
    from hookproof import _guard_child

    _LOCK = threading.Lock()
    _guard_child.after_fork_in_child()
    records = _guard_child.records_dir()
    if records is not None:
        _child_records, _policy = records, _FOLLOW_PARENT


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked_child)


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
    from hookproof import _guard_child, _guard_langchain, _guard_socket

    _guard_langchain.install()
    _guard_socket.install()
    _guard_child.install()


_LANGCHAIN_REPLACEMENTS = {
    "BaseChatModel": "ScriptedChatModel or RecordingChatModel (over a ScriptedChatModel) from "
    "hookproof.adapters.langchain",
    "BaseLLM": "langchain-core's FakeListLLM (langchain_core.language_models)",
    "Embeddings": "langchain-core's DeterministicFakeEmbedding (langchain_core.embeddings)",
}


def _langchain_kind(model: object) -> str | None:
    """Which LangChain base ``model`` is (a key of ``_LANGCHAIN_REPLACEMENTS``), if any."""
    for base in type(model).__mro__:
        if base.__name__ in _LANGCHAIN_REPLACEMENTS and base.__module__.startswith(
            "langchain_core."
        ):
            return base.__name__
    return None


def _model_label(model: object) -> str:
    for attribute in ("name", "model_name", "model"):
        value = getattr(model, attribute, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


def _blocked_model_message(model: object) -> str:
    kind = type(model).__name__
    langchain = _langchain_kind(model)
    if langchain is not None:
        replacement = _LANGCHAIN_REPLACEMENTS[langchain]
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
