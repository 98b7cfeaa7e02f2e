"""The one agent engine (internal): the loop, layer chaining, executors, checkpoints and state.

Dialects implement its typed interface; nothing outside hookproof imports it.
"""
