"""The one agent engine (internal): the loop, layer chaining, executors, checkpoints, state
and the run observer.

Dialects implement its typed interface; nothing outside hookproof imports it.
"""

from hookproof._engine.checkpoint import (
    Checkpoint,
    InMemoryCheckpointer,
    Interrupt,
    InterruptRaised,
    interrupt,
)
from hookproof._engine.dialect import Dialect
from hookproof._engine.executors import drive, run_tool
from hookproof._engine.loop import Engine
from hookproof._engine.observer import (
    STEP,
    UNLISTENED,
    RunObserver,
    StepListener,
    Unlistened,
    Unobserved,
)
from hookproof._engine.run import RunHandle
from hookproof._engine.state import (
    StateSpec,
    UntrackedValue,
    add_messages,
    is_untracked,
    position_of,
)
from hookproof._engine.types import Layer, LayerContract, NodeHook, Phase, RunResult, Stack
from hookproof._engine.workers import in_thread

__all__ = [
    "STEP",
    "UNLISTENED",
    "Checkpoint",
    "Dialect",
    "Engine",
    "InMemoryCheckpointer",
    "Interrupt",
    "InterruptRaised",
    "Layer",
    "LayerContract",
    "NodeHook",
    "Phase",
    "RunHandle",
    "RunObserver",
    "RunResult",
    "Stack",
    "StateSpec",
    "StepListener",
    "Unlistened",
    "Unobserved",
    "UntrackedValue",
    "add_messages",
    "drive",
    "in_thread",
    "interrupt",
    "is_untracked",
    "position_of",
    "run_tool",
]
