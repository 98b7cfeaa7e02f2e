"""A support agent whose tools depend on the caller's role: guests search the help center,
admins may also refund an order."""

from support_desk.agent import ADMIN_ONLY, Ctx, RoleFilter, build_agent, lookup, refund

__all__ = ["ADMIN_ONLY", "Ctx", "RoleFilter", "build_agent", "lookup", "refund"]
