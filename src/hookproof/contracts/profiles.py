"""Hypothesis settings profiles for contract suites: ``ci``, ``dev`` and ``deep``.

``ci`` is derandomized (the same examples on every run), with a fixed number of examples and
no deadline; ``dev`` is quick; ``deep`` searches long before a release. The pytest plugin
registers them when a profile is asked for (``--hypothesis-profile`` or
``HYPOTHESIS_PROFILE``) and selects ``ci`` when the ``CI`` environment variable is set.
Importing this module imports hypothesis: the plugin does so only when a profile is asked for.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

__all__ = ["PROFILES", "register_profiles"]

PROFILES = ("ci", "dev", "deep")


def register_profiles() -> None:
    slow = [HealthCheck.too_slow]
    settings.register_profile(
        "ci",
        derandomize=True,
        max_examples=60,
        deadline=None,
        print_blob=True,
        suppress_health_check=slow,
    )
    # Explicitly random: on a machine with CI set, hypothesis' own default is derandomized, and
    # a campaign whose workers all draw the same examples would explore nothing new.
    settings.register_profile("dev", max_examples=30, deadline=None, derandomize=False)
    settings.register_profile(
        "deep", max_examples=2000, deadline=None, suppress_health_check=slow, derandomize=False
    )
