"""Hypothesis settings profiles for contract suites: ``ci``, ``dev`` and ``deep`` (defined in
``hookproof._profiles``, which the pytest plugin loads without importing the contracts)."""

from __future__ import annotations

from hookproof._profiles import PROFILES, register_profiles

__all__ = ["PROFILES", "register_profiles"]
