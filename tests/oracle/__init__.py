"""LangChain's own agent unit tests as hookproof's oracle (issue #30, item 1).

``python -m tests.oracle.run_langchain`` fetches the source distribution of the installed
LangChain version, verifies it against ``langchain_sources.toml``, runs its
``tests/unit_tests/agents`` unmodified on LangChain's ``create_agent`` and again with
``create_agent`` swapped for ``hookproof.adapters.langchain.on_reference_engine``, and
compares both runs with the reviewed list in ``langchain_differences.toml``.
"""
