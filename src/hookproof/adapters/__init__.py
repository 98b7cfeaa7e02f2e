"""Adapters for real agent frameworks, each imported only when used.

``hookproof.adapters.langchain``: ScriptedChatModel and RecordingChatModel, real LangChain
chat models that record the same FinalRequest the reference runtime records.
"""
