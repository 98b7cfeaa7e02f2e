"""A LangChain run as a hookproof Trace: node hooks, model and tool calls from LangChain's
callbacks (``TraceHandler``), and wrap hooks from instrumenting how LangChain composes them
while an agent is built (``build_instrumented``, ``instrumented_builds``), which also gives
its model calls' FinalRequests their provenance."""

from hookproof.adapters.langchain.tracing._builds import build_instrumented, instrumented_builds
from hookproof.adapters.langchain.tracing._handler import TraceHandler

__all__ = ["TraceHandler", "build_instrumented", "instrumented_builds"]
