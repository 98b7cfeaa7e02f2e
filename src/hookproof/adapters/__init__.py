"""Adapters for real agent frameworks, each imported only when used.

``hookproof.adapters.langchain``: ScriptedChatModel and RecordingChatModel, real LangChain
chat models that record the same FinalRequest the reference runtime records; its
``target`` module holds LangChainTarget, which runs LangChain and deepagents graphs for the
contract checks. ``hookproof.adapters.deepagents``: DeepAgentsTarget, which authors deep
agents with deepagents' own ``create_deep_agent`` and profiles (the conformance probes).
"""
