"""hookproof's pytest plugin (entry point ``hookproof``; disable with ``-p no:hookproof``).

A thin layer over the library: it imports hookproof's internals, and never hypothesis,
syrupy or langchain, only inside the hooks and fixtures that need them, so loading it costs
nothing for test suites that do not use it. Fixtures and markers arrive with the snapshot
work; today the plugin only makes hookproof's presence visible in pytest's header.
"""

from __future__ import annotations

import pytest


def pytest_report_header(config: pytest.Config) -> str:
    from hookproof import __version__

    return f"hookproof: {__version__}"
