"""hookproof's own suite: the plugin registers and selects the hypothesis profiles
(``ci`` under CI, or HYPOTHESIS_PROFILE / --hypothesis-profile); locally, ``dev`` is used."""

from __future__ import annotations

import os

from hypothesis import settings

from hookproof.contracts.profiles import register_profiles

if not os.environ.get("CI") and not os.environ.get("HYPOTHESIS_PROFILE"):
    register_profiles()
    settings.load_profile("dev")
