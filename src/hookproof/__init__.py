"""hookproof: deterministic contract testing for LLM agent middleware.

``import hookproof`` is cheap: it loads the error types only. Import the parts you use:
``hookproof.runtime``, ``hookproof.models``, ``hookproof.trace``, ``hookproof.messages``.
"""

from hookproof.errors import HookproofError

__all__ = ["HookproofError", "__version__"]

__version__ = "0.1.0"
