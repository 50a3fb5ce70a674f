"""Who is calling: bearer tokens scoped to projects, and the caller of the current RPC.

A server with a tokens file (``AGENTEVAL_TOKENS_FILE``) answers only calls that carry
``authorization: Bearer <token>`` of a token in that file. Each token names the projects it
may use, or is an admin token (every project, and the operator's RPCs: dead letters, webhook
deliveries). A call acts in one project: the ``agenteval-project`` header, else the token's
first project. Everything a call creates belongs to that project; everything of a project
the caller may not use looks missing (NOT_FOUND), so ids and names leak nothing.

Without a tokens file the server is open: every call is an admin of every project, acting
in the header's project or ``default``. A server refuses to start open on an interface other
than loopback unless told to (``AGENTEVAL_ALLOW_OPEN=true``).

The file holds SHA-256 digests, never the tokens (``agent-eval tokens create`` writes it)::

    tokens:
      - name: ci
        sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
        projects: [checkout]
      - name: ops
        sha256: ...
        admin: true
"""

from __future__ import annotations

import contextvars
import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agenteval.contracts import errors

PROJECT_HEADER = "agenteval-project"
"""gRPC metadata key (and HTTP header) naming the project a call acts in."""
AUTHORIZATION = "authorization"
DEFAULT_PROJECT = "default"
"""The project of everything created without one (open servers, older data)."""
TOKEN_PREFIX = "aev_"
RELOAD_CHECK_S = 1.0
MAX_PROJECT_CHARS = 64

_PROJECT_OK = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


def check_project(name: str, what: str = "project") -> str:
    """A project name as it may be stored and put in a bus subject, or InvalidArgument."""
    if not name or len(name) > MAX_PROJECT_CHARS or not set(name) <= _PROJECT_OK or name.startswith("."):
        shown = name if len(name) <= MAX_PROJECT_CHARS else name[:MAX_PROJECT_CHARS] + "..."
        raise errors.InvalidArgument(
            f"{what} {shown!r}: 1-{MAX_PROJECT_CHARS} characters of letters, digits, '-', '_' and '.'"
        )
    return name


@dataclass(frozen=True)
class Caller:
    """The identity behind one call, and the project it acts in."""

    name: str
    project: str = DEFAULT_PROJECT
    projects: frozenset[str] | None = None
    """Projects it may use; None: every project (an admin, or an open server)."""
    admin: bool = False
    chosen: bool = False
    """The project was named by the call (header), not defaulted."""

    def may_use(self, project: str) -> bool:
        """Whether the call may act in ``project``: the projects of its token, or only the one it
        named (an admin naming a project is confined to it)."""
        return self.projects is None or project in self.projects

    def sees(self, project: str | None) -> bool:
        """Whether an object of ``project`` exists for this caller (else it looks missing)."""
        return self.may_use(project or DEFAULT_PROJECT)

    @property
    def visible(self) -> frozenset[str] | None:
        """The projects a listing shows: the one it named, else all it may use (None: all)."""
        return self.projects

    def require_admin(self, what: str) -> None:
        if not self.admin:
            raise errors.PermissionDenied(f"{what} needs an admin token")


OPEN = Caller(name="open", admin=True)
"""The caller of an open server (no tokens file) and of in-process calls."""

_current: contextvars.ContextVar[Caller] = contextvars.ContextVar("agenteval_caller", default=OPEN)


def current() -> Caller:
    """The caller of the RPC being served (OPEN outside any RPC, and on open servers)."""
    return _current.get()


def acting_as(caller: Caller) -> contextvars.Token[Caller]:
    return _current.set(caller)


def reset(token: contextvars.Token[Caller]) -> None:
    _current.reset(token)


class TokenEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=128)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    projects: list[str] = Field(default_factory=list)
    admin: bool = False

    @field_validator("projects")
    @classmethod
    def _projects(cls, v: list[str]) -> list[str]:
        for p in v:
            check_project(p)
        return v


class TokensFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tokens: list[TokenEntry] = Field(default_factory=list)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def read_tokens_file(path: Path) -> TokensFile:
    """The tokens file, validated; InvalidArgument with a one-line reason when it is not."""
    import yaml

    try:
        text = path.read_text()
    except OSError as exc:
        raise errors.InvalidArgument(f"tokens file {path}: {exc.strerror or exc}") from None
    try:
        doc = yaml.safe_load(text) or {}
        return TokensFile.model_validate(doc)
    except yaml.YAMLError as exc:
        raise errors.InvalidArgument(f"tokens file {path}: not YAML ({exc})") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise errors.InvalidArgument(f"tokens file {path}: {where}: {first['msg']}") from None


def write_tokens_file(path: Path, doc: TokensFile) -> None:
    import yaml

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(yaml.safe_dump(doc.model_dump(), sort_keys=False))
    tmp.chmod(0o600)
    tmp.replace(path)


@dataclass
class Authenticator:
    """Checks a call's token against the tokens file and gives its Caller.

    The file is read again when it changes (checked at most once a second), so a token
    created or removed with ``agent-eval tokens`` counts without a restart; a file that
    became invalid is logged and the last good one kept."""

    entries: dict[str, TokenEntry] = field(default_factory=dict)
    path: Path | None = None
    internal: dict[str, TokenEntry] = field(default_factory=dict)
    """Tokens of this process's own services calling each other (never in the file)."""
    _mtime: float = 0.0
    _checked: float = 0.0

    @classmethod
    def from_file(cls, path: Path) -> Authenticator:
        doc = read_tokens_file(path)
        if not doc.tokens:
            raise errors.InvalidArgument(f"tokens file {path}: no tokens (every call would be refused)")
        return cls({e.sha256: e for e in doc.tokens}, path, _mtime=path.stat().st_mtime)

    def add_internal(self) -> str:
        """A new admin token for calls between the services of this process (embedded mode)."""
        token = new_token()
        self.internal[digest(token)] = TokenEntry(name="internal", sha256=digest(token), admin=True)
        return token

    def _refresh(self) -> None:
        import logging
        import time

        now = time.monotonic()
        if self.path is None or now - self._checked < RELOAD_CHECK_S:
            return
        self._checked = now
        try:
            mtime = self.path.stat().st_mtime
            if mtime == self._mtime:
                return
            self._mtime = mtime
            self.entries = {e.sha256: e for e in read_tokens_file(self.path).tokens}
        except (OSError, errors.InvalidArgument) as exc:
            logging.getLogger("agenteval.auth").error(
                "tokens file not reloaded, keeping the last good one: %s", exc
            )

    def caller(self, metadata: Iterable[tuple[str, Any]]) -> Caller:
        self._refresh()
        token, project = _read_metadata(metadata)
        if not token:
            raise errors.Unauthenticated(
                "this server needs a token: set AGENTEVAL_TOKEN (the Client's token=) "
                "(header 'authorization: Bearer <token>')"
            )
        entry = self.entries.get(digest(token)) or self.internal.get(digest(token))
        if entry is None:
            raise errors.Unauthenticated("the token is not known to this server")
        projects = None if entry.admin else frozenset(entry.projects)
        if project:
            check_project(project, "the agenteval-project header")
            if projects is not None and project not in projects:
                raise errors.PermissionDenied(f"token {entry.name!r} may not use project {project!r}")
            # A call that names its project sees that project only, an admin's too (that is how
            # a service acts on behalf of one project).
            return Caller(entry.name, project, frozenset({project}), entry.admin, chosen=True)
        if projects is not None and not projects:
            raise errors.PermissionDenied(f"token {entry.name!r} has no project")
        default = entry.projects[0] if entry.projects else DEFAULT_PROJECT
        return Caller(entry.name, default, projects, entry.admin)


def open_caller(metadata: Iterable[tuple[str, Any]]) -> Caller:
    """The caller on an open server: an admin acting in the header's project or default."""
    _token, project = _read_metadata(metadata)
    if project:
        check_project(project, "the agenteval-project header")
        return Caller("open", project, frozenset({project}), True, chosen=True)
    return OPEN


def _read_metadata(metadata: Iterable[tuple[str, Any]]) -> tuple[str, str]:
    token = project = ""
    for key, value in metadata:
        if not isinstance(value, str):
            continue
        if key == AUTHORIZATION:
            scheme, _, rest = value.partition(" ")
            if scheme.lower() == "bearer":
                token = rest.strip()
        elif key == PROJECT_HEADER:
            project = value.strip()
    return token, project


def is_loopback(address: str) -> bool:
    """Whether a listen address (host:port) is reachable only from this machine."""
    import ipaddress

    host = address.rsplit(":", 1)[0].strip("[]")
    if host in ("localhost", ""):
        return host == "localhost"
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


__all__ = [
    "DEFAULT_PROJECT",
    "OPEN",
    "PROJECT_HEADER",
    "Authenticator",
    "Caller",
    "check_project",
    "current",
    "is_loopback",
]
