"""hookproof: deterministic contract testing for LLM agent middleware.

``import hookproof`` is cheap: it loads the error types only. Import the parts you use:
``hookproof.runtime``, ``hookproof.models``, ``hookproof.trace``, ``hookproof.messages``.

PYTEST_DONT_REWRITE: the Python children of a guarded test import this package before their
own code runs (the real-model guard); without the marker a pytest session in such a child
warns that this module, which holds no assert, was imported before it could be rewritten.
"""

from hookproof.errors import HookproofError

__all__ = ["HookproofError", "__version__"]

__version__ = "0.1.0"
