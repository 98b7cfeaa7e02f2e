"""The redaction installed for the whole process (hookproof.redaction.configure_redaction),
kept here so that hookproof.errors can redact every message with it."""

from __future__ import annotations

from typing import Protocol

from hookproof._secrets.patterns import redact_builtin

__all__ = ["TextRedactor", "install", "installed", "redact_installed"]


class TextRedactor(Protocol):
    def redact_text(self, text: str) -> str: ...


_installed: TextRedactor | None = None  # None: the built-in fields and patterns only


def install(redactor: TextRedactor | None) -> TextRedactor | None:
    """Install ``redactor`` and return the one it replaces."""
    global _installed
    previous, _installed = _installed, redactor
    return previous


def installed() -> TextRedactor | None:
    return _installed


def redact_installed(text: str) -> str:
    """``text`` redacted by the installed redaction (the built-ins when none is)."""
    return redact_builtin(text) if _installed is None else _installed.redact_text(text)
