"""The app the build-reuse and fast-contract tests share: two tools, a role context, and
the deny-list bug a router can have (a role it does not know is treated as trusted)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.tools import tool

__all__ = ["GUEST", "INTRUDER", "MEMBER", "Ctx", "refund", "search", "shows_refund"]


@dataclass(frozen=True)
class Ctx:
    role: str


GUEST, MEMBER, INTRUDER = Ctx("guest"), Ctx("member"), Ctx("intruder")


@tool
def search(query: str) -> str:
    """Search the knowledge base."""
    return f"found {query}"


@tool
def refund(order_id: str) -> str:
    """Refund an order."""
    return f"refunded {order_id}"


def shows_refund(context: Any) -> bool:
    """The deny-list bug: a role it does not know is treated as trusted."""
    return getattr(context, "role", "guest") not in ("guest", "member")
