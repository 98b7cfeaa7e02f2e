"""LangChain's ``response_format`` on the reference runtime (its StructuredOutput).

The strategies are LangChain's own objects (``ToolStrategy``, ``ProviderStrategy``,
``AutoStrategy``, or a bare schema standing for an AutoStrategy), and so are the schema
bindings that parse an answer and the errors a bad answer raises. What this module adds is
where each step happens on the engine: the request the innermost model is given (the
artificial tools and ``tool_choice="any"``, or the native format) and what the model's reply
becomes (the parsed ``structured_response``, the ToolMessage answering an artificial call,
the error ToolMessages of a retry). The choice between native and tool-calling output is
LangChain's own (``langchain.agents.factory``), asked once per model call, as LangChain asks.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from langchain.agents import factory as lc_factory
from langchain.agents.structured_output import (
    AutoStrategy,
    MultipleStructuredOutputsError,
    OutputToolBinding,
    ProviderStrategy,
    ProviderStrategyBinding,
    StructuredOutputValidationError,
    ToolStrategy,
)

from hookproof._support.frozen import thaw
from hookproof.adapters.langchain._convert import schema_of_tool
from hookproof.adapters.langchain.bridge._bound import bound_as
from hookproof.adapters.langchain.bridge._tools import lc_tool
from hookproof.adapters.langchain.bridge._views import lc_message
from hookproof.messages import AssistantMessage, ToolCall, ToolMessage
from hookproof.requests import ModelRequest, ModelResponse
from hookproof.tools import ToolSchema

__all__ = ["LangChainStructuredOutput"]

_STRATEGIES = (ToolStrategy, ProviderStrategy, AutoStrategy)


def _as_strategy(response_format: Any) -> Any:
    """A bare schema stands for LangChain's automatic choice, as LangChain reads it."""
    if response_format is None or isinstance(response_format, _STRATEGIES):
        return response_format
    return AutoStrategy(schema=response_format)


class LangChainStructuredOutput:
    """One agent's response format. ``response_format`` (what requests carry) is the
    agent's strategy, a bare schema wrapped in AutoStrategy; the artificial tools are those of
    its tool-calling form, made once, so every call binds the same names."""

    def __init__(self, response_format: Any) -> None:
        self.response_format = _as_strategy(response_format)
        initial = self.response_format
        if isinstance(initial, AutoStrategy):
            initial = ToolStrategy(schema=initial.schema)
        self._tool_strategy = initial if isinstance(initial, ToolStrategy) else None
        specs = () if self._tool_strategy is None else self._tool_strategy.schema_specs
        self._names = {spec.name: stable_name(spec) for spec in specs}
        self._bindings = {
            self._names[spec.name]: OutputToolBinding.from_schema_spec(spec) for spec in specs
        }
        self._schemas = {name: _schema(name, b) for name, b in self._bindings.items()}
        self.tool_names = frozenset(self._bindings)

    def bind(self, request: ModelRequest) -> Any:
        strategy = self._strategy_for(request)
        if isinstance(strategy, ProviderStrategy):
            return ProviderBound(_provider_request(request, strategy), strategy)
        if isinstance(strategy, ToolStrategy):
            return ToolBound(self._tool_request(request, strategy), strategy, self._bindings)
        return PlainBound(request)

    def _strategy_for(self, request: ModelRequest) -> Any:
        """The strategy this call uses: an automatic choice asks LangChain whether the
        request's model has native structured output (looked up at call time, so a test
        that patches LangChain's answer patches this one)."""
        chosen = _as_strategy(request.response_format)
        if not isinstance(chosen, AutoStrategy):
            return chosen
        tools = [lc_tool(item) for item in request.tools]
        if lc_factory._supports_provider_strategy(request.model, tools=tools):
            return ProviderStrategy(schema=chosen.schema)
        if chosen is self.response_format and self._tool_strategy is not None:
            return self._tool_strategy  # the same names as the tools made at build
        return ToolStrategy(schema=chosen.schema)

    def _tool_request(self, request: ModelRequest, strategy: ToolStrategy[Any]) -> ModelRequest:
        wanted = [self._names.get(spec.name, spec.name) for spec in strategy.schema_specs]
        for name in wanted:
            if name not in self._bindings:
                raise ValueError(
                    f"ToolStrategy specifies tool '{name}' which wasn't declared in the "
                    "original response format when creating the agent."
                )
        # A middleware may narrow a union to some of its schemas: only those are shown.
        shown = [schema for name, schema in self._schemas.items() if name in wanted]
        return request.override(
            tools=[*request.tools, *shown], tool_choice="any", response_format=None
        )


def stable_name(spec: Any) -> str:
    """The name a schema's tool or native format goes by: LangChain's, except that a JSON
    schema without a title gets a name from its content instead of a random one, so the
    requests a snapshot shows are the same on every run."""
    schema = spec.schema
    if not isinstance(schema, dict) or "title" in schema:
        return str(spec.name)
    text = json.dumps(schema, sort_keys=True, default=str)
    return f"response_format_{hashlib.sha256(text.encode()).hexdigest()[:4]}"


def _schema(name: str, binding: OutputToolBinding[Any]) -> ToolSchema:
    """The artificial tool's schema under ``name``; the model is bound with LangChain's tool
    object for it, as create_agent binds it (renamed where the name is made stable)."""
    tool = binding.tool
    shown = schema_of_tool(tool)
    schema = ToolSchema(name=name, description=shown.description, parameters=shown.parameters)
    return bound_as(schema, tool if tool.name == name else tool.model_copy(update={"name": name}))


def _provider_request(request: ModelRequest, strategy: ProviderStrategy[Any]) -> ModelRequest:
    """The native format rides in the request's ``response_format`` (the model is bound
    with it); OpenAI-compatible models also get ``strict=True``, as LangChain binds them."""
    settings = dict(request.model_settings)
    model = request.model
    if lc_factory._is_openai_compatible_model(model) and not getattr(
        model, "use_responses_api", False
    ):
        settings["strict"] = True
    native = strategy.to_model_kwargs()["response_format"]
    native["json_schema"]["name"] = stable_name(strategy.schema_spec)
    return request.override(response_format=native, model_settings=settings)


@dataclass(frozen=True, slots=True)
class PlainBound:
    """A call without structured output (a middleware cleared the format)."""

    request: ModelRequest

    def answer(self, response: ModelResponse) -> ModelResponse:
        return response


@dataclass(frozen=True, slots=True)
class ProviderBound:
    """A call with the model's native structured output: its text is the answer."""

    request: ModelRequest
    strategy: ProviderStrategy[Any]

    def answer(self, response: ModelResponse) -> ModelResponse:
        message = response.message
        if message is None or message.tool_calls:
            return response
        spec = self.strategy.schema_spec
        reply = lc_message(message)
        try:
            parsed = ProviderStrategyBinding.from_schema_spec(spec).parse(reply)  # type: ignore[arg-type]
        except Exception as error:
            name = getattr(spec.schema, "__name__", "response_format")
            raise StructuredOutputValidationError(name, error, reply) from error  # type: ignore[arg-type]
        return ModelResponse(result=response.result, structured_response=parsed)


@dataclass(frozen=True, slots=True)
class ToolBound:
    """A call whose answer is a call of one of the artificial tools."""

    request: ModelRequest
    strategy: ToolStrategy[Any]
    bindings: dict[str, OutputToolBinding[Any]]

    def answer(self, response: ModelResponse) -> ModelResponse:
        message = response.message
        calls = (
            [] if message is None else [c for c in message.tool_calls if c.name in self.bindings]
        )
        if message is None or not calls:
            return response
        if len(calls) > 1:
            names = [c.name for c in calls]
            failure = MultipleStructuredOutputsError(names, _reply(message))
            return self._retried(response, calls, failure)
        call = calls[0]
        try:
            parsed = self.bindings[call.name].parse(thaw(call.args))
        except Exception as error:  # noqa: BLE001 - any failure to parse is a bad answer, as in LangChain
            invalid = StructuredOutputValidationError(call.name, error, _reply(message))
            return self._retried(response, calls, invalid, error)
        text = self.strategy.tool_message_content or f"Returning structured response: {parsed}"
        added = (*response.result, _answer_message(text, call))
        return ModelResponse(result=added, structured_response=parsed)

    def _retried(
        self,
        response: ModelResponse,
        calls: list[ToolCall],
        failure: Exception,
        cause: Exception | None = None,
    ) -> ModelResponse:
        """Each bad call answered with LangChain's error text so the model tries again, or
        the error raised where the strategy does not handle it."""
        retry, text = lc_factory._handle_structured_output_error(failure, self.strategy)
        if not retry:
            raise failure from cause
        answers = tuple(_answer_message(text, call) for call in calls)
        return ModelResponse(result=(*response.result, *answers))


def _reply(message: AssistantMessage) -> Any:
    """LangChain's view of the model's reply, as its errors carry it."""
    return lc_message(message)


def _answer_message(text: str, call: ToolCall) -> ToolMessage:
    return ToolMessage(content=text, tool_call_id=call.id or "", name=call.name)
