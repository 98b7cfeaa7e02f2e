"""A check run's thread id: the one the config names, else one no other run uses, in this
process or in a child forked from it (which shares a checkpointer's file, say), without a
random draw per run."""

from __future__ import annotations

import os
import sys

import pytest

from hookproof.targets.interrupts import thread_id


def test_a_named_thread_is_kept_and_every_other_run_gets_its_own() -> None:
    assert thread_id({"configurable": {"thread_id": "mine"}}) == "mine"
    drawn = [thread_id(), thread_id({}), thread_id({"configurable": {}}), thread_id(None)]
    drawn += [thread_id() for _ in range(1000)]
    assert len(set(drawn)) == len(drawn)
    assert all(name.startswith("hookproof-check-") for name in drawn)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the platform does not fork")
@pytest.mark.skipif(sys.platform == "darwin", reason="forking a threaded process on macOS")
@pytest.mark.filterwarnings("ignore:.*fork.*:DeprecationWarning")  # Python 3.12+, threads
def test_a_forked_child_never_draws_a_thread_id_its_parent_draws() -> None:
    # A counter alone (the twin of this test's subject) gives the child the parent's next
    # id: both would resume one another's checkpoints on a shared checkpointer.
    before = thread_id()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        os.close(read)
        os.write(write, "\n".join(thread_id() for _ in range(3)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        in_child = pipe.read().split("\n")
    os.waitpid(child, 0)
    in_parent = [before, *(thread_id() for _ in range(3))]
    assert len(in_child) == 3
    assert not set(in_child) & set(in_parent)
    assert in_child[0].rsplit("-", 1)[0] != before.rsplit("-", 1)[0]  # a prefix of its own


def test_an_empty_config_of_any_kind_gets_a_fresh_thread_as_no_config_does() -> None:
    from hookproof.targets.interrupts import thread_id

    ids = [thread_id(empty) for empty in (None, {}, [], ())]  # type: ignore[arg-type]
    assert len(set(ids)) == len(ids) and all(i.startswith("hookproof-check-") for i in ids)
