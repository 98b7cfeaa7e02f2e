"""Blocks of guarded code: ``block_real_models`` turns the guard on, ``expect_blocked`` proves
that the code inside is refused, and ``swallowed_message`` says why a phase that caught a
refusal fails anyway.

Every refusal is also recorded in the ``block_real_models`` block it happened in (the block
yields the list), so a refusal the code under test caught (a fallback model, a retry loop, an
``except`` clause) is still seen. Kept free of heavy imports (no ``typing``, no
``dataclasses``): every guarded child loads it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager

from hookproof.errors import NothingBlocked, RealModelBlocked, UsageError
from hookproof.guard._hosts import allowed_host_problem
from hookproof.guard._policy import GuardPolicy
from hookproof.guard._state import current_policy, in_force

__all__ = [
    "GuardHandle",
    "block_real_models",
    "expect_blocked",
    "install_guards",
    "swallowed_message",
]


def install_guards() -> None:
    """Every line of defence, in this process (idempotent). Imported on the first block that
    blocks: a process that only checks models (an agent run outside tests) loads less."""
    from hookproof.guard._langchain import install as guard_langchain_models
    from hookproof.guard._popen import install as guard_popen_environments
    from hookproof.guard._socket import install as guard_sockets

    guard_langchain_models()
    guard_sockets()
    guard_popen_environments()


@contextmanager
def block_real_models(
    active: bool = True, *, allow_hosts: Iterable[str] = ()
) -> Iterator[list[str]]:
    """Turn the guard on (or off) for the code inside the ``with`` block; ``allow_hosts``
    names the hosts (names, IP addresses or networks such as ``10.0.0.0/8``) sockets may
    still connect to. Yields the messages of the refusals made inside the block (a nested
    block keeps its own), in order."""
    if active:
        install_guards()
    with in_force(GuardPolicy(active, _allowed(allow_hosts))) as refusals:
        yield refusals


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


def _allowed(hosts: Iterable[str]) -> frozenset[str]:
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
