"""agent-eval tokens: the bearer tokens a server accepts, and the projects each may use."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from agenteval.cli import JsonOut, app, fail, out, print_json

if TYPE_CHECKING:
    from agenteval.runtime.auth import TokensFile

tokens_app = typer.Typer(
    help="Bearer tokens (the file AGENTEVAL_TOKENS_FILE names): who may call the server, in which projects.",
    no_args_is_help=True,
)
app.add_typer(tokens_app, name="tokens")

TokensPath = Annotated[
    Path | None,
    typer.Option(
        "--file",
        help="The tokens file (default: AGENTEVAL_TOKENS_FILE, else .agenteval/tokens.yaml).",
    ),
]


def _path(path: Path | None) -> Path:
    if path is not None:
        return path
    env = os.environ.get("AGENTEVAL_TOKENS_FILE")
    return Path(env) if env else Path(".agenteval/tokens.yaml")


def _load(path: Path) -> TokensFile:
    from agenteval.contracts.errors import InvalidArgument
    from agenteval.runtime.auth import TokensFile, read_tokens_file

    if not path.exists():
        return TokensFile()
    try:
        return read_tokens_file(path)
    except InvalidArgument as exc:
        fail(str(exc), 2)


@tokens_app.command("create")
def create(
    name: Annotated[str, typer.Argument(help="Who or what uses the token (a person, a CI job).")],
    project: Annotated[
        list[str] | None,
        typer.Option(
            "--project", "-p", help="A project it may use (repeat for several; the first is its default)."
        ),
    ] = None,
    admin: Annotated[bool, typer.Option("--admin", help="Every project, and the operators' RPCs.")] = False,
    path: TokensPath = None,
) -> None:
    """Create a token: its digest goes into the file, the token is printed once (keep it)."""
    from agenteval.contracts.errors import InvalidArgument
    from agenteval.runtime.auth import TokenEntry, check_project, digest, new_token, write_tokens_file

    projects = project or []
    if not projects and not admin:
        fail("a token needs --project NAME (or --admin)", 2)
    try:
        for p in projects:
            check_project(p)
    except InvalidArgument as exc:
        fail(str(exc), 2)
    file = _path(path)
    doc = _load(file)
    if any(e.name == name for e in doc.tokens):
        fail(f"a token named {name!r} exists in {file}; revoke it first or pick another name", 2)
    token = new_token()
    doc.tokens.append(TokenEntry(name=name, sha256=digest(token), projects=projects, admin=admin))
    write_tokens_file(file, doc)
    typer.echo(token)
    scope = "admin (every project)" if admin else "projects " + ", ".join(projects)
    from agenteval.cli import err

    err.print(
        f"token {escape(name)!r} ({scope}) added to {file}; it is shown only this once", highlight=False
    )


@tokens_app.command("list")
def list_tokens(path: TokensPath = None, json_out: JsonOut = False) -> None:
    """The tokens of the file: name, projects, admin (never the tokens themselves)."""
    file = _path(path)
    doc = _load(file)
    rows = [{"name": e.name, "projects": e.projects, "admin": e.admin} for e in doc.tokens]
    if json_out:
        print_json(rows)
        return
    if not rows:
        out.print(f"no tokens in {file}: a server without a tokens file is open (loopback only)")
        return
    for e in doc.tokens:
        scope = "admin" if e.admin else ", ".join(e.projects)
        out.print(f"{escape(e.name)}  {escape(scope)}", highlight=False)


@tokens_app.command("revoke")
def revoke(
    name: Annotated[str, typer.Argument(help="The token's name.")],
    path: TokensPath = None,
) -> None:
    """Remove a token; running servers stop accepting it within a second."""
    from agenteval.runtime.auth import write_tokens_file

    file = _path(path)
    doc = _load(file)
    kept = [e for e in doc.tokens if e.name != name]
    if len(kept) == len(doc.tokens):
        fail(f"no token named {name!r} in {file}", 2)
    doc.tokens = kept
    write_tokens_file(file, doc)
    out.print(f"token {escape(name)!r} revoked")
