"""A wrap hook's link in a sync chain when its dialect gives the hook's checks as a
``LayerContract``: the engine calls the hook itself (chain.py's ``_sync_link`` calls a
checking wrapper around it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookproof._engine.run import Run, error_data
from hookproof._engine.types import Layer, LayerContract

__all__ = ["contract_link"]

SyncLink = Callable[[Run, Any], Any]


def contract_link(
    layer: Layer, contract: LayerContract, inner: SyncLink, observed: bool
) -> SyncLink:
    """``_sync_link`` calling the hook itself with its dialect's checks (``LayerContract``):
    the same steps, rows and errors as the checking wrapper, two calls fewer per layer."""
    owner, hook, when = layer.owner, layer.hook, layer.when
    func, passes, check, shown, result = (
        contract.hook,
        contract.passes,
        contract.check,
        contract.shown,
        contract.result,
    )
    label = f"{owner}.{hook}"

    def link(run: Run, value: Any) -> Any:
        if when is not None and not when(value):
            return inner(run, value)
        run.source = label
        if run.probe is not None:
            run.probe.reached(label)
        trace = run.trace
        trace.rows.append(("layer", hook, "enter", owner, trace.depth, None))
        trace.depth += 1
        last: list[Any] = [None]  # the inner result of the hook's last handler call

        def handler(changed: Any) -> Any:
            if type(changed) is not passes:
                check(changed)
            last[0] = None  # a retry forgets what a failed attempt left
            passed = observed and changed is not value
            if passed:
                run.observer.request_passed(owner, value, changed)
            try:
                last[0] = answer = inner(run, changed)
            finally:
                run.source = label  # back in this layer
                if passed:
                    run.observer.request_returned()
            return answer if shown is None else shown(answer)

        try:
            outcome = result(func(value, handler), last[0])
        except BaseException as error:
            trace.record("layer", hook, "error", owner, error_data(error))
            raise
        trace.depth = depth = trace.depth - 1
        trace.rows.append(("layer", hook, "exit", owner, depth, None))
        return outcome

    return link
