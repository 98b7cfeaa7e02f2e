"""difflib's line matching with the same answers, in time near linear in the lines (the
snapshot diff and provenance both match lines with it).

difflib's SequenceMatcher splits two sequences at their longest common run (the first in
``a``, then the first in ``b``, among the longest) and recurses on both sides. It finds each
run by visiting every earlier occurrence of every line, so lines that repeat (``<user>``,
``|``) make a long history quadratic or worse. LineMatcher keeps difflib's recursion and
answers each "longest common run" question faster, with the same answer:

- a range inside one already split cannot hold a run longer than the run that split it, so
  its run is first looked for at exactly that length, leftmost first, through an index of
  b's windows of that length by hash (checked line by line, so a collision costs time, not
  correctness). A long history with many equal-length changes is answered this way, each
  range in time proportional to how far its run is from the range's start;
- otherwise a suffix automaton of b's range finds the run in one pass over a's range, unless
  difflib's own search would visit few lines.
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence

__all__ = ["LineMatcher"]

# The automaton costs about this many of difflib's visits per line it reads.
_AUTOMATON_FROM = 16
_MODULUS = (1 << 61) - 1
_BASE = 1_000_003

_Range = tuple[int, int, int, int]


class LineMatcher(difflib.SequenceMatcher[str]):
    """``difflib.SequenceMatcher(a=old, b=new, autojunk=False)``, with faster longest runs."""

    def __init__(self, old: Sequence[str], new: Sequence[str]) -> None:
        super().__init__(a=old, b=new, autojunk=False)
        self.old, self.new = old, new
        self.repeats = Counter(new)
        self.bounds: dict[_Range, int] = {}
        self.windows: _Windows | None = None

    def find_longest_match(
        self, alo: int = 0, ahi: int | None = None, blo: int = 0, bhi: int | None = None
    ) -> difflib.Match:
        ahi = len(self.old) if ahi is None else ahi
        bhi = len(self.new) if bhi is None else bhi
        found = self._longest(alo, ahi, blo, bhi)
        i, j, k = found
        if k:  # the ranges difflib looks at next, either side of this run
            self.bounds[(alo, i, blo, j)] = self.bounds[(i + k, ahi, j + k, bhi)] = k
        return found

    def _longest(self, alo: int, ahi: int, blo: int, bhi: int) -> difflib.Match:
        bound = self.bounds.pop((alo, ahi, blo, bhi), None)
        if bound is not None:
            if self.windows is None:
                self.windows = _Windows(self.old, self.new)
            length = min(bound, ahi - alo, bhi - blo)
            found = self.windows.leftmost(alo, ahi, blo, bhi, length)
            if found is not None:
                return difflib.Match(*found)
        visits = sum(map(self.repeats.__getitem__, self.old[alo:ahi]))
        if visits <= _AUTOMATON_FROM * (ahi - alo + bhi - blo):
            return super().find_longest_match(alo, ahi, blo, bhi)
        return difflib.Match(*longest_common_run(self.old, alo, ahi, self.new, blo, bhi))


class _Windows:
    """Runs of a given length, found by hashing every window of that length in b."""

    def __init__(self, a: Sequence[str], b: Sequence[str]) -> None:
        codes: dict[str, int] = {}
        self.a, self.b = a, b
        self.a_prefix = _prefix_hashes([codes.setdefault(line, len(codes) + 1) for line in a])
        self.b_prefix = _prefix_hashes([codes.setdefault(line, len(codes) + 1) for line in b])
        self.by_length: dict[int, dict[int, list[int]]] = {}

    def _index(self, length: int) -> dict[int, list[int]]:
        """Every start in b of a window of ``length`` lines, by the window's hash."""
        index = self.by_length.get(length)
        if index is None:
            index = self.by_length[length] = {}
            for start, key in enumerate(_window_hashes(self.b_prefix, length)):
                index.setdefault(key, []).append(start)
        return index

    def leftmost(
        self, alo: int, ahi: int, blo: int, bhi: int, length: int
    ) -> tuple[int, int, int] | None:
        """The first (i, j) with a[i:i+length] == b[j:j+length] in the ranges, if any."""
        if length <= 0:
            return None
        index, prefix = self._index(length), self.a_prefix
        power = pow(_BASE, length, _MODULUS)
        for i in range(alo, ahi - length + 1):
            starts = index.get((prefix[i + length] - prefix[i] * power) % _MODULUS)
            if starts is not None:
                j = self._first_equal(starts, i, blo, bhi, length)
                if j is not None:
                    return i, j, length
        return None

    def _first_equal(
        self, starts: list[int], i: int, blo: int, bhi: int, length: int
    ) -> int | None:
        window = self.a[i : i + length]
        for position in range(bisect_left(starts, blo), len(starts)):
            j = starts[position]
            if j + length > bhi:
                return None
            if self.b[j : j + length] == window:
                return j
        return None


def _prefix_hashes(codes: list[int]) -> list[int]:
    hashes, value = [0], 0
    for code in codes:
        value = (value * _BASE + code) % _MODULUS
        hashes.append(value)
    return hashes


def _window_hashes(prefix: list[int], length: int) -> list[int]:
    power = pow(_BASE, length, _MODULUS)
    return [
        (prefix[start + length] - prefix[start] * power) % _MODULUS
        for start in range(len(prefix) - length)
    ]


def longest_common_run(
    a: Sequence[str], alo: int, ahi: int, b: Sequence[str], blo: int, bhi: int
) -> tuple[int, int, int]:
    """(i, j, k): the longest a[i:i+k] == b[j:j+k] in the ranges; least i, then least j."""
    automaton = _Automaton(b, blo, bhi)
    moves, links, lengths = automaton.moves, automaton.links, automaton.lengths
    state = size = best = best_end = best_state = 0
    for i in range(alo, ahi):
        line = a[i]
        while state and line not in moves[state]:
            state = links[state]
            size = lengths[state]
        target = moves[state].get(line)
        if target is not None:
            state, size = target, size + 1
        if size > best:
            best, best_end, best_state = size, i, state
    if not best:
        return alo, blo, 0
    return best_end - best + 1, automaton.first_end[best_state] - best + 1, best


class _Automaton:
    """The suffix automaton of b[lo:hi]: every substring of it is a path from state 0.

    ``first_end[s]`` is where, in b, the first occurrence of the strings of state s ends.
    """

    __slots__ = ("first_end", "lengths", "links", "moves")

    def __init__(self, b: Sequence[str], lo: int, hi: int) -> None:
        self.moves: list[dict[str, int]] = [{}]
        self.links = [-1]
        self.lengths = [0]
        self.first_end = [-1]
        last = 0
        for j in range(lo, hi):
            last = self._extend(last, b[j], j)

    def _new(self, moves: dict[str, int], link: int, length: int, first_end: int) -> int:
        self.moves.append(moves)
        self.links.append(link)
        self.lengths.append(length)
        self.first_end.append(first_end)
        return len(self.lengths) - 1

    def _extend(self, last: int, line: str, j: int) -> int:
        moves, links, lengths = self.moves, self.links, self.lengths
        current = self._new({}, 0, lengths[last] + 1, j)
        state = last
        while state != -1 and line not in moves[state]:
            moves[state][line] = current
            state = links[state]
        if state == -1:
            return current
        known = moves[state][line]
        if lengths[state] + 1 == lengths[known]:
            links[current] = known
            return current
        clone = self._new(
            dict(moves[known]), links[known], lengths[state] + 1, self.first_end[known]
        )
        while state != -1 and moves[state].get(line) == known:
            moves[state][line] = clone
            state = links[state]
        links[known] = links[current] = clone
        return current
