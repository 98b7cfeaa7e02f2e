"""The guard in a Python child process a guarded test started (see ``_channel``).

``start`` is what the bootstrap ``sitecustomize`` runs before the child's own code;
``leave_parent`` is for a pytest session started that way, which follows its own options.
Kept free of heavy imports (no ``typing``): every guarded child imports it at start-up.
"""

from __future__ import annotations

import os
import sys

from hookproof.guard._block import install_guards
from hookproof.guard._channel import PYTHONPATH, RECORDS, apply, without_bootstrap
from hookproof.guard._state import child_records, follow_parent

__all__ = ["leave_parent", "start"]


def start(bootstrap: str) -> None:
    """In a child started from a test: the guard follows the parent's, and refusals go to
    the parent's records directory. Then the ``sitecustomize`` the bootstrap hides runs."""
    records = os.environ.get(RECORDS)
    if records:
        install_guards()
        follow_parent(records)
    _run_hidden_sitecustomize(bootstrap)


def _run_hidden_sitecustomize(bootstrap: str) -> None:
    from importlib.machinery import PathFinder
    from importlib.util import module_from_spec

    path = [entry for entry in sys.path if os.path.abspath(entry or ".") != bootstrap]
    spec = PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


def leave_parent() -> None:
    """A pytest session started by a guarded test follows its own options from here on: the
    guard inherited from the parent is dropped, and its children get the session's."""
    records = child_records()
    if records is not None:  # not a session run in-process by a guarded test (pytester)
        follow_parent(None)
        kept = without_bootstrap(os.environ.get(PYTHONPATH), os.path.dirname(records))
        apply({RECORDS: None, PYTHONPATH: kept or None})
