"""The state print a reused build is compared by: what a run can change in place shows,
pure memos the caller names do not, and the first difference is named by its path."""

from __future__ import annotations

import itertools
from typing import Any

from hookproof._support.object_state import first_difference, state_print


def _nothing_ignored(owner: Any, name: str) -> bool:
    return False


class Holder:
    __slots__ = ("memo", "value")

    def __init__(self, value: Any) -> None:
        self.value, self.memo = value, None


def _changed(item: Any, change: Any, ignored: Any = _nothing_ignored) -> str:
    before = state_print(item, ignored)
    change()
    return first_difference(before, item, ignored)


def test_what_a_run_can_change_in_place_shows_with_its_path() -> None:
    seen: list[str] = []
    item = Holder({"seen": seen})
    assert _changed(item, lambda: seen.append("x")) == ".value['seen']"
    counter = itertools.count()  # its repr shows where it is
    assert _changed(Holder(counter), lambda: next(counter)) == ".value"
    items = iter([1, 2, 3])  # its repr does not; what pickling it saves does
    assert _changed(Holder(items), lambda: next(items)) == ".value.<pickled>[1]"


def test_a_closure_cell_and_an_attribute_show() -> None:
    calls = [0]

    def hook() -> int:
        return calls[0]

    assert _changed(Holder(hook), lambda: calls.append(1)) == ".value.<cell 0>"
    item = Holder(None)
    assert _changed(item, lambda: setattr(item, "value", 1)) == ".value"


def test_a_named_memo_and_an_unchanged_object_do_not_show() -> None:
    item = Holder(1)
    only_memo = lambda owner, name: name == "memo"  # noqa: E731
    assert _changed(item, lambda: setattr(item, "memo", "filled"), only_memo) == ""
    assert _changed(item, lambda: None) == ""
    assert state_print(Holder([1]), _nothing_ignored) != state_print(Holder([2]), _nothing_ignored)


class Slotted:
    __slots__ = ("memo", "value")

    def __init__(self, value: Any) -> None:
        self.value, self.memo = value, None


def test_the_print_is_the_walk_with_paths_item_for_item() -> None:
    """``state_print`` has a loop of its own (the hot path); ``first_difference`` walks with
    paths. Both must see the same items in the same order, or every reuse would stop."""
    from collections import deque
    from functools import partial

    from hookproof._support.object_state import _walk

    shared = [1, "two", (3.0, None)]
    root = {
        "shared": shared,
        "again": shared,
        ("tuple", "key"): {1: b"x", frozenset({4}): deque([5])},
        "objects": [Holder(shared), Slotted({"memo": 1}), partial(int, "7", base=8)],
        "functions": [_changed, Holder.__init__, Holder(None).__init__, len, int],
    }
    only_memo = lambda owner, name: name == "memo"  # noqa: E731
    for ignored in (_nothing_ignored, only_memo):
        walked = [item for _, item in _walk(root, ignored, with_paths=True)]
        assert state_print(root, ignored) == walked
        assert len(walked) > 40


def test_a_thread_pool_shows_whether_it_takes_work_not_which_threads_it_started() -> None:
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=2)
    assert _changed(Holder(pool), lambda: pool.submit(int, "1").result()) == ""
    assert _changed(Holder(pool), lambda: pool.shutdown(wait=True)) == ".value"


def test_a_thread_pools_own_attributes_show() -> None:
    """A subclass's state (or its initializer's arguments) is walked; only its workers are
    left out."""
    from concurrent.futures import ThreadPoolExecutor

    class CountingPool(ThreadPoolExecutor):
        def __init__(self) -> None:
            super().__init__(max_workers=1)
            self.calls = 0

    pool = CountingPool()
    try:
        changed = _changed(Holder(pool), lambda: setattr(pool, "calls", pool.calls + 1))
    finally:
        pool.shutdown(wait=True)
    assert changed == ".value.__dict__['calls']"


class _NamedMemo:
    """A filter that names the only names it leaves out (the print asks it about those)."""

    names = frozenset({"memo"})

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, owner: Any, name: str) -> bool:
        self.asked.append(name)
        return name == "memo"


def test_a_filter_that_names_its_names_prints_what_asking_about_every_name_prints() -> None:
    shared = {"memo": [1], "value": 2}
    root = [Holder(shared), Slotted(shared), Holder(Holder("x")), {"memo": Slotted(None)}]
    for item in root[:3]:
        item.memo = "filled"
    named = _NamedMemo()
    asking_all = lambda owner, name: name == "memo"  # noqa: E731
    assert state_print(root, named) == state_print(root, asking_all)
    assert set(named.asked) == {"memo"}  # never asked about "value" or "__dict__"
    item = Holder(1)
    assert _changed(item, lambda: setattr(item, "memo", "again"), named) == ""
    assert _changed(item, lambda: setattr(item, "value", 2), named) == ".value"
