"""The channel between a guarded test and the Python child processes it starts.

While any ``block_real_models`` block is open, ``os.environ`` carries the guard to every
child: ``HOOKPROOF_GUARD_RECORDS`` (this process's directory of child refusals) and, first on
``PYTHONPATH``, a directory whose ``sitecustomize`` turns the guard on in any Python child
before its own code runs (``hookproof.guard.child.start``; then the ``sitecustomize`` it
hides runs, if there is one). Such a child follows its parent's policy as it is at the
moment, read from a file the parent rewrites whenever a block opens or closes: a pool worker
started in one test and used in another is guarded by the test that uses it. A forked child
(``os.fork``, the fork start method of multiprocessing) keeps the guard it had in memory.
Each refusal made in a child is a file in the records directory; the block reads (and
removes) them when it ends, so a refusal a child caught still fails the test.

Not reached: programs that are not Python, and Python started with ``-I``, ``-E`` or
``-S``, or from an environment cleared by other means than ``Popen(env=...)`` (see
``_popen``). Kept free of heavy imports (no ``typing``): every guarded child imports it at
start-up.
"""

from __future__ import annotations

import os
import sys
import threading

from hookproof.guard._policy import GuardPolicy

__all__ = [
    "PYTHONPATH",
    "RECORDS",
    "after_fork_in_child",
    "apply",
    "child_environment",
    "collect",
    "parent_policy",
    "publish",
    "records_dir",
    "without_bootstrap",
    "write_record",
]

RECORDS = "HOOKPROOF_GUARD_RECORDS"
PYTHONPATH = "PYTHONPATH"
_LOCK = threading.Lock()
_home: str | None = None  # this process's directory: bootstrap/ and records/
_written = 0

_BOOTSTRAP = '''"""Written by hookproof's real-model guard: this Python process was started by a
test, so the guard is turned on before anything else runs."""
import os
import sys

_added = {root!r} not in sys.path  # hookproof's own location, last: the child's copy wins
if _added:
    sys.path.append({root!r})
try:
    from hookproof.guard.child import start
except Exception as error:  # any failure leaves the child unguarded: say so, fail closed
    records = os.environ.get("{records}", "")
    try:
        with open(os.path.join(os.path.dirname(records), "policy"), "rb") as file:
            blocking = file.read(1) == b"1"
    except OSError:
        blocking = True
    if records and blocking:
        name = os.path.join(records, "%d-unguarded.txt" % os.getpid())
        with open(name + ".tmp", "w", encoding="utf-8") as file:
            file.write(
                "hookproof: a Python child process the test started (%s) could not load "
                "hookproof's guard (%r), so its model calls and connections were not checked. "
                "Start Python children with the test's interpreter (sys.executable), or "
                "install hookproof where this one can import it." % (sys.executable, error)
            )
        os.replace(name + ".tmp", name)
else:
    start({here!r})
finally:
    if _added:
        sys.path.remove({root!r})
'''


def child_environment() -> dict[str, str | None]:
    """The values of the guard's variables for children (computed from ``os.environ``)."""
    home = _ensure_home()
    path = without_bootstrap(os.environ.get(PYTHONPATH))
    bootstrap = os.path.join(home, "bootstrap")
    return {
        RECORDS: os.path.join(home, "records"),
        PYTHONPATH: os.pathsep.join(part for part in (bootstrap, path) if part),
    }


_POLICY_SIZE = 4096
_published: bytes | None = None
_policy_file: int | None = None


def publish(policy: GuardPolicy) -> None:
    """Make ``policy`` the one this process's children follow from now on.

    Written in place with one ``pwrite`` (a rename costs milliseconds on some disks, and
    this runs around every phase of every test); the text is written twice over, so a
    reader that catches a write half done sees two halves that differ and reads again."""
    global _published, _policy_file
    home = _ensure_home()
    text = f"{int(policy.blocking)} {' '.join(sorted(policy.allow_hosts))}".encode()
    record = text + b"\0" + text + b"\0"
    with _LOCK:
        if record == _published:
            return
        if _policy_file is None:
            _policy_file = os.open(os.path.join(home, "policy"), os.O_RDWR | os.O_CREAT, 0o600)
        padded = record.ljust(max(_POLICY_SIZE, len(record)), b" ")
        _write_at_start(_policy_file, padded)
        _published = record


def _write_at_start(descriptor: int, data: bytes) -> None:
    if hasattr(os, "pwrite"):
        os.pwrite(descriptor, data, 0)
    else:  # Windows
        os.lseek(descriptor, 0, os.SEEK_SET)
        os.write(descriptor, data)


def parent_policy(records: str | None) -> GuardPolicy:
    """In a child: the policy its parent published last, beside ``records`` (its records
    directory, when the environment no longer names it). One that cannot be read blocks,
    with no host allowed: fail closed."""
    records = os.environ.get(RECORDS) or records or ""
    path = os.path.join(os.path.dirname(records), "policy")
    for _ in range(5):
        try:
            with open(path, "rb") as file:
                first, second, *_ = [*file.read().split(b"\0"), b"", b""]
        except OSError:
            break
        if first and first == second:
            blocking, _, hosts = first.decode().partition(" ")
            return GuardPolicy(blocking == "1", frozenset(hosts.split()))
    return GuardPolicy(True)


def apply(values: dict[str, str | None]) -> dict[str, str | None]:
    """Put ``values`` in ``os.environ``; returns what was there, for ``apply`` to restore."""
    previous = {name: os.environ.get(name) for name in values}
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    return previous


def without_bootstrap(path: str | None, home: str | None = None) -> str | None:
    """``path`` (a PYTHONPATH) without the bootstrap of ``home`` (by default this
    process's)."""
    home = home or _home
    if not path or home is None:
        return path
    bootstrap = os.path.join(home, "bootstrap")
    kept = [part for part in path.split(os.pathsep) if part != bootstrap]
    return os.pathsep.join(kept) or None


def _ensure_home() -> str:
    global _home
    with _LOCK:
        if _home is None:
            import atexit
            import shutil
            import tempfile

            home = tempfile.mkdtemp(prefix="hookproof-guard-")
            _write_bootstrap(os.path.join(home, "bootstrap"))
            os.mkdir(os.path.join(home, "records"))
            atexit.register(shutil.rmtree, home, ignore_errors=True)
            _home = home
        return _home


def _write_bootstrap(directory: str) -> None:
    os.mkdir(directory)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    source = _BOOTSTRAP.format(root=root, records=RECORDS, here=directory)
    with open(os.path.join(directory, "sitecustomize.py"), "w", encoding="utf-8") as file:
        file.write(source)


def collect() -> list[str]:
    """The refusals children wrote since the last call, removed from the directory."""
    if _home is None:
        return []
    records = os.path.join(_home, "records")
    found = []
    for name in sorted(os.listdir(records)):
        if name.endswith(".txt"):
            path = os.path.join(records, name)
            with open(path, encoding="utf-8") as file:
                found.append(file.read())
            os.remove(path)
    return found


def write_record(records: str, message: str) -> None:
    """Write one refusal made in this (child) process where the parent's block reads it."""
    global _written
    with _LOCK:
        _written += 1
        name = os.path.join(records, f"{os.getpid():010d}-{_written:06d}.txt")
    where = f"\n\n(Refused in a child process the test started: pid {os.getpid()}, {_command()}.)"
    try:
        with open(name + ".tmp", "w", encoding="utf-8") as file:
            file.write(message + where)
        os.replace(name + ".tmp", name)  # the reader never sees half a record
    except OSError:  # the parent has ended and taken its directory: nobody left to tell
        return


def _command() -> str:
    command = " ".join([os.path.basename(sys.executable), *sys.argv])
    return command if len(command) <= 120 else command[:117] + "..."


def records_dir() -> str | None:
    """This process's records directory, if a blocking block ever made one."""
    return None if _home is None else os.path.join(_home, "records")


def after_fork_in_child() -> None:
    """A forked child may inherit the lock held by a thread that no longer exists."""
    global _LOCK
    _LOCK = threading.Lock()
