"""Project-internal helpers every part of hookproof may import: frozen values, lazy names,
safe files, untimed sections."""
