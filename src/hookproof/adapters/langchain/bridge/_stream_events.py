"""``stream_events(version="v3")`` and ``astream_events(version="v3")`` on a LangChain-shaped
agent: the agent's stream (``version="v2"``, every namespace) read by LangGraph's own stream
multiplexer with the transformers a ``create_agent`` graph registers, in its order: LangGraph's
built-ins, the tool-call and subagent transformers, each middleware's ``transformers``, then
the ``transformers=`` given to ``create_agent`` and to the call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from hookproof.errors import UsageError

__all__ = ["LangChainStreamEvents", "agent_transformers"]

Factory = Callable[[tuple[str, ...]], Any]


def agent_transformers(
    middleware: Iterable[Any], transformers: Sequence[Factory] | None
) -> tuple[Factory, ...]:
    """The stream transformers LangChain's ``create_agent`` compiles into its graph, each
    once (by identity) in the order first given."""
    from langchain.agents._subagent_transformer import SubagentTransformer
    from langgraph.prebuilt import ToolCallTransformer

    declared = [item for m in middleware for item in getattr(m, "transformers", ())]
    found: list[Factory] = []
    for factory in (ToolCallTransformer, SubagentTransformer, *declared, *(transformers or ())):
        if not any(factory is known for known in found):
            found.append(factory)
    return tuple(found)


class LangChainStreamEvents:
    """The ``stream_events``/``astream_events`` half of a compiled ``create_agent`` graph."""

    stream_transformers: tuple[Factory, ...] = ()
    stream: Callable[..., Any]
    astream: Callable[..., Any]

    def stream_events(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        version: str = "v2",
        transformers: Sequence[Factory] | None = None,
        **options: Any,
    ) -> Any:
        """LangGraph's ``GraphRunStream`` over this agent's run (``version="v3"`` only)."""
        from langgraph.stream import GraphRunStream

        mux, modes = self._mux(version, transformers, options, is_async=False)
        chunks = self.stream(
            input, _v3_config(config), stream_mode=modes, subgraphs=True, version="v2", **options
        )
        return GraphRunStream(iter(chunks), mux)

    async def astream_events(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        version: str = "v2",
        transformers: Sequence[Factory] | None = None,
        **options: Any,
    ) -> Any:
        """Like stream_events, on the running event loop (await it for the run stream)."""
        from langgraph.stream import AsyncGraphRunStream

        mux, modes = self._mux(version, transformers, options, is_async=True)
        chunks = self.astream(
            input, _v3_config(config), stream_mode=modes, subgraphs=True, version="v2", **options
        )
        return AsyncGraphRunStream(chunks.__aiter__(), mux)

    def _mux(
        self,
        version: str,
        transformers: Sequence[Factory] | None,
        options: Mapping[str, Any],
        *,
        is_async: bool,
    ) -> tuple[Any, list[str]]:
        from langgraph.stream import LifecycleTransformer, SubgraphTransformer
        from langgraph.stream._mux import StreamMux
        from langgraph.stream.transformers import MessagesTransformer, ValuesTransformer

        if version != "v3":
            raise UsageError(
                f"hookproof: stream_events(version={version!r}) is not streamed by the "
                "reference engine; it streams version='v3' (and stream()/astream() every "
                "stream mode an agent test uses). Use version='v3', or run this on LangChain."
            )
        owned = sorted({"stream_mode", "subgraphs"} & set(options))
        if owned:
            raise TypeError(
                f"stream_events(version='v3') does not accept {', '.join(owned)}: the run "
                "stream chooses the stream modes and always streams subgraphs."
            )
        _warn_beta()
        builtins = [ValuesTransformer, MessagesTransformer, LifecycleTransformer]
        factories = [*builtins, SubgraphTransformer, *self.stream_transformers]
        factories += _checked(transformers or ())
        mux = StreamMux(factories=factories, scope=(), is_async=is_async)
        modes = {mode for item in mux._transformers for mode in item.required_stream_modes}
        return mux, sorted(modes)


_WARNED: list[bool] = []


def _warn_beta() -> None:
    """LangGraph warns once per process that its v3 stream is experimental; so does this one
    (a test that turns warnings into errors sees the same on both)."""
    import warnings

    from langchain_core._api.beta_decorator import LangChainBetaWarning

    if _WARNED:
        return
    _WARNED.append(True)
    warnings.warn(
        "The v3 streaming protocol on Pregel is experimental.", LangChainBetaWarning, stacklevel=4
    )


def _checked(specs: Sequence[Any]) -> list[Factory]:
    """Transformer classes or factories, as LangGraph takes them (never built instances:
    each namespace of the run gets its own)."""
    from langgraph.stream import StreamTransformer

    for spec in specs:
        if isinstance(spec, StreamTransformer) or not callable(spec):
            raise TypeError(
                "stream_events(version='v3') takes transformers as classes or factories "
                f"called with a scope, not {type(spec).__name__} instances: pass the class, "
                "or `lambda scope: MyTransformer(scope, ...)`."
            )
    return list(specs)


def _v3_config(config: Mapping[str, Any] | None) -> dict[str, Any]:
    from langgraph._internal._constants import CONFIG_KEY_STREAM_MESSAGES_V2

    given = dict(config or {})
    configurable = {**(given.get("configurable") or {}), CONFIG_KEY_STREAM_MESSAGES_V2: True}
    return {**given, "configurable": configurable}
