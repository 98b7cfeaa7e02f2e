"""hookproof's pytest plugin (entry point ``hookproof``; disable with ``-p no:hookproof``).

A thin layer: it imports hookproof's library only inside hooks and fixtures that need it,
so loading the plugin costs nothing for test suites that never use it.
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "hookproof_real_models: reserved for hookproof; see the hookproof documentation",
    )
