"""What a run of a ChatModelAgent reads of its agent: the settings, checked once when the
agent is built and handed to every run (a run never reaches back into the agent)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from hookproof._support.frozen import FrozenDict
from hookproof.eino._handlers import AgentMiddleware
from hookproof.eino._provenance import AgentProvenance, RequestShape, shape
from hookproof.eino._records import ChatModelAgentContext, ModelContext, return_directly_flags
from hookproof.eino._retry import Clock, ModelFailoverConfig, ModelRetryConfig, SystemClock
from hookproof.eino._tools import ToolIndex, as_eino_tool, index_tools
from hookproof.errors import UsageError
from hookproof.messages import SystemMessage, text_message

__all__ = ["DEFAULT_EINO_MAX_ITERATIONS", "AgentSettings", "Setting"]

T = TypeVar("T")

# ChatModelAgent's bound, Eino's default: model calls per run; the next one ends the run with
# an ExceedMaxIterationsError event, and max_iterations of 0 or less means this value.
DEFAULT_EINO_MAX_ITERATIONS = 20
_TOOLS_WHERE = "ChatModelAgent(tools=...) with the middlewares' tools"


@dataclass(frozen=True, slots=True)
class AgentSettings:
    """The agent's settings as its runs read them (see ChatModelAgent for each)."""

    name: str
    instruction: str
    tools: tuple[Any, ...]
    tool_index: ToolIndex  # what each run uses unless before_agent changes the tools
    return_directly: FrozenDict
    max_iterations: int
    model_retry_config: ModelRetryConfig | None
    model_failover_config: ModelFailoverConfig | None
    unknown_tools_handler: Any
    tool_arguments_handler: Any
    callbacks: tuple[Any, ...]
    clock: Clock
    # built once per agent: a run that keeps the agent's instruction and tools reuses them
    system_message: SystemMessage | None
    provenance_base: RequestShape
    unchanged_provenance: AgentProvenance  # of a model call nothing changed on the way
    model_context: ModelContext  # what hooks are shown while the run has the agent's tools
    # a model call's options (and the state's tool infos they come from) while it has them
    model_options: tuple[tuple[Any, None, None], FrozenDict]
    # what before_agent receives: the agent's instruction, tools and return_directly
    run_config: ChatModelAgentContext

    @classmethod
    def checked(
        cls,
        *,
        name: str,
        instruction: str,
        tools: Sequence[Any],
        middlewares: Sequence[AgentMiddleware],
        return_directly: Mapping[str, bool] | Sequence[str] | None,
        max_iterations: int,
        model_retry_config: ModelRetryConfig | None,
        model_failover_config: ModelFailoverConfig | None,
        unknown_tools_handler: Any,
        tool_arguments_handler: Any,
        callbacks: Sequence[Any],
        clock: Clock | None,
    ) -> AgentSettings:
        _check_configs(model_retry_config, model_failover_config)
        checked_instruction = _instruction(instruction, middlewares)
        collected = _tools(tools, middlewares)
        index = index_tools(collected, "tools[{index}]", _TOOLS_WHERE)
        system = system_message(checked_instruction)
        flags = return_directly_flags(return_directly)
        base = shape(index.infos, [system] if system is not None else [])
        return cls(
            name=name,
            instruction=checked_instruction,
            tools=collected,
            tool_index=index,
            return_directly=flags,
            max_iterations=_iterations(max_iterations),
            model_retry_config=model_retry_config,
            model_failover_config=model_failover_config,
            unknown_tools_handler=unknown_tools_handler,
            tool_arguments_handler=tool_arguments_handler,
            callbacks=tuple(callbacks),
            clock=clock or SystemClock(),
            system_message=system,
            provenance_base=base,
            unchanged_provenance=AgentProvenance(base),
            run_config=ChatModelAgentContext.trusted(
                instruction=checked_instruction, tools=collected, return_directly=flags
            ),
            model_options=((index.frozen_infos, None, None), FrozenDict({"tools": index.infos})),
            model_context=ModelContext.trusted(
                tools=index.infos,
                model_retry_config=model_retry_config,
                model_failover_config=model_failover_config,
            ),
        )


class Setting(Generic[T]):
    """An agent's read-only attribute that shows its AgentSettings field of the same name."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, agent: Any, owner: type | None = None) -> T:
        return getattr(agent._settings, self.name)  # type: ignore[no-any-return]

    def __set__(self, agent: Any, value: Any) -> None:
        raise UsageError(
            f"hookproof: ChatModelAgent.{self.name} is fixed when the agent is built (its runs "
            "read the settings checked then). Build a new agent: "
            f"ChatModelAgent(..., {self.name}=...)."
        )


def system_message(instruction: str) -> SystemMessage | None:
    """The system message of a run with this instruction (none when it is empty)."""
    return text_message(SystemMessage, instruction) if instruction else None


def _check_configs(retry: object, failover: object) -> None:
    if retry is not None and not isinstance(retry, ModelRetryConfig):
        raise UsageError("hookproof: model_retry_config must be a hookproof.eino.ModelRetryConfig.")
    if failover is not None and not isinstance(failover, ModelFailoverConfig):
        raise UsageError(
            "hookproof: model_failover_config must be a hookproof.eino.ModelFailoverConfig."
        )


def _instruction(instruction: str, middlewares: Sequence[AgentMiddleware]) -> str:
    if not isinstance(instruction, str):
        raise UsageError(f"hookproof: instruction must be a str, got {type(instruction).__name__}.")
    parts = [instruction, *(m.additional_instruction for m in middlewares)]
    return "\n\n".join(part for part in parts if part)


def _tools(tools: Sequence[Any], middlewares: Sequence[AgentMiddleware]) -> tuple[Any, ...]:
    collected = [as_eino_tool(item, f"tools[{i}]") for i, item in enumerate(tools)]
    for index, middleware in enumerate(middlewares):
        collected += [
            as_eino_tool(item, f"middlewares[{index}].additional_tools[{j}]")
            for j, item in enumerate(middleware.additional_tools)
        ]
    return tuple(collected)


def _iterations(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"hookproof: max_iterations must be an int, got {value!r}.")
    return value if value > 0 else DEFAULT_EINO_MAX_ITERATIONS
