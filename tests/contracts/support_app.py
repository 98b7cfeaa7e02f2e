"""The toy support app the contract tests check, free of any framework: a role in the
context, one tool a guest may call and two only an admin may. Each test module registers
the functions as its framework's tools (hookproof's or LangChain's ``tool``), so every
framework is checked on the same application."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Ctx:
    role: str


GUEST_TOOLS = {"public_search"}
EXCLUDED = {"delete_customer", "export_data"}
REVIEW = {"delete_customer": True, "export_data": True}


def public_search(query: str) -> str:
    """Search the public knowledge base."""
    return f"public:{query}"


def delete_customer(customer_id: str) -> str:
    """Delete a customer record."""
    return f"deleted {customer_id}"


def export_data(table: str) -> str:
    """Export a table."""
    return f"exported {table}"


FUNCTIONS = (public_search, delete_customer, export_data)


def is_guest(runtime: Any) -> bool:
    """Anyone but an admin is a guest, a missing context included."""
    return getattr(getattr(runtime, "context", None), "role", "guest") != "admin"
