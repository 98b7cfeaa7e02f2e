"""The guard's state in this process: the policy in force, the refusals of the open block,
and the models let through. Every line of defence asks ``current_policy`` and reports to
``record_refusal``; ``in_force`` is what a block changes.

Kept free of heavy imports (no ``typing``, no ``dataclasses``): every guarded child loads it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from hookproof.errors import RealModelBlocked
from hookproof.guard._channel import (
    after_fork_in_child,
    apply,
    child_environment,
    collect,
    parent_policy,
    publish,
    records_dir,
    write_record,
)
from hookproof.guard._policy import GuardPolicy

__all__ = [
    "allow_model",
    "child_records",
    "current_policy",
    "follow_parent",
    "in_force",
    "is_allowed_model",
    "record_refusal",
]

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
        return parent_policy(_child_records)
    return policy


def child_records() -> str | None:
    """In a child process started from a test: where its refusals go."""
    return _child_records


def record_refusal(error: RealModelBlocked) -> RealModelBlocked:
    """Note ``error`` in the current block's refusals (from any thread) and return it; in a
    child process, also where the parent's block reads it."""
    with _LOCK:
        _refusals.append(str(error))
    if _child_records is not None:
        write_record(_child_records, str(error))
    return error


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


def is_allowed_model(model: object) -> bool:
    return id(model) in _allowed_models


@contextmanager
def in_force(policy: GuardPolicy) -> Iterator[list[str]]:
    """Make ``policy`` this process's and its children's inside the ``with`` block; yields
    the refusals made there (children's included, when the policy blocks)."""
    global _policy, _refusals
    refusals: list[str] = []
    with _LOCK:
        previous = _policy, _refusals
        _policy, _refusals = policy, refusals
    publish(policy)
    environment = apply(child_environment())
    try:
        yield refusals
    finally:
        apply(environment)
        with _LOCK:
            if policy.blocking:  # what children refused (and caught) belongs to this block
                refusals.extend(collect())
            _policy, _refusals = previous
        publish(current_policy())


def follow_parent(records: str | None) -> None:
    """Outside any block, this process's guard is its parent's, whatever the parent's is at
    the moment (a child process started from a test; refusals go to ``records``); or, with
    None, the process's own again (a pytest session in such a child takes over)."""
    global _policy, _child_records
    with _LOCK:
        _policy = GuardPolicy() if records is None else _FOLLOW_PARENT
        _child_records = records


def _forked_child() -> None:
    """A forked child of a process that opened blocks follows that process's guard from
    now on (a pool worker lives on into other tests), and its refusals go where the parent
    reads them; a child of a fork server follows already."""
    global _LOCK, _child_records, _policy
    _LOCK = threading.Lock()
    after_fork_in_child()
    records = records_dir()
    if records is not None:
        _child_records, _policy = records, _FOLLOW_PARENT


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked_child)
