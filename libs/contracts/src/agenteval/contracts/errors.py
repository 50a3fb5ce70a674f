"""One small exception hierarchy; the gRPC interceptor maps it to status codes."""

from __future__ import annotations


class AgentEvalError(Exception):
    """Base of the errors services raise on purpose."""


class NotFound(AgentEvalError):
    """The thing asked for does not exist."""


class InvalidArgument(AgentEvalError):
    """The request is malformed or names something invalid."""


class Conflict(AgentEvalError):
    """The request conflicts with the current state."""


class AlreadyExists(Conflict):
    """The thing to create exists already."""


class Unavailable(AgentEvalError):
    """A dependency is down; retrying later may work."""


class PermissionDenied(AgentEvalError):
    """Not allowed."""


class Unauthenticated(AgentEvalError):
    """No credentials, or credentials the server does not know."""
