"""The contract suite bundled with hookproof: ``hookproof check`` runs it when the current
directory has no ``contracts/`` of its own. Importable, so a project can re-export it."""
