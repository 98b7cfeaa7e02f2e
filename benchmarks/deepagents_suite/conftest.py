"""With HOOKPROOF_BENCH_REBUILD=1 every run, on either engine, builds the app anew (as
before builds were reused), so the suite's time can be compared."""

import os

if os.environ.get("HOOKPROOF_BENCH_REBUILD") == "1":
    from hookproof.adapters.langchain import _reuse

    _reuse.ReusedBuild.returned = lambda self: None  # type: ignore[method-assign]
