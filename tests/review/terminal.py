"""A program run in a pseudo-terminal and driven as a person would: wait for what it prints,
type a line. Standard library only (``pty``, ``select``, ``subprocess``)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

__test__ = False


class Terminal:
    """``Terminal(command, cwd)`` starts ``command`` with a terminal as its stdin, stdout and
    stderr; ``expect`` waits for text, ``type`` sends a line, ``close`` returns the exit code."""

    def __init__(self, command: Sequence[str], cwd: Path) -> None:
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            command, cwd=cwd, stdin=slave, stdout=slave, stderr=slave, close_fds=True
        )
        os.close(slave)
        self.screen = ""
        self.seen = 0  # how much of the screen earlier expects consumed

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:  # the program closed the terminal
            return False
        self.screen += data.decode("utf-8", "replace").replace("\r\n", "\n")
        return bool(data)

    def expect(self, text: str, timeout: float = 60) -> str:
        """Wait until ``text`` appears after the last expected text; what came before it."""
        deadline = time.monotonic() + timeout
        while text not in self.screen[self.seen :]:
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(left):
                if text in self.screen[self.seen :]:
                    break
                raise AssertionError(f"{text!r} never appeared; the terminal shows:\n{self.screen}")
        start = self.screen.index(text, self.seen)
        before, self.seen = self.screen[self.seen : start], start + len(text)
        return before

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self, timeout: float = 60) -> int:
        code = self.process.wait(timeout)
        while self._read(0.05):
            pass
        os.close(self.master)
        return code
