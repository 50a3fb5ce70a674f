"""The FastAPI application: who calls (tokens), errors as HTTP statuses, the API and the pages."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from agenteval.contracts import errors
from agenteval.gateway.web.clients import Clients
from agenteval.runtime.auth import PROJECT_HEADER, Authenticator

HERE = Path(__file__).parent
TOKEN_COOKIE = "agenteval_token"
STATUS = {
    errors.NotFound: 404,
    errors.InvalidArgument: 400,
    errors.AlreadyExists: 409,
    errors.Conflict: 409,
    errors.PermissionDenied: 403,
    errors.Unauthenticated: 401,
    errors.Unavailable: 503,
}


def status_of(exc: errors.AgentEvalError) -> int:
    for cls, code in STATUS.items():
        if isinstance(exc, cls):
            return code
    return 500


class NeedsLogin(Exception):
    """A page asked for without a token on a server that needs one."""


def create_app(target: str, authenticator: Authenticator | None = None, tls_ca: str | None = None) -> FastAPI:
    """The HTTP API and dashboard for the gRPC services at ``target``. With an authenticator,
    every request needs a token (``Authorization: Bearer``, or the login cookie), checked here
    and passed on to the services, which scope what it sees to its projects."""
    clients = Clients(target, tls_ca)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        await clients.close()

    app = FastAPI(
        title="agenteval",
        summary="Runs, results, transcripts, comparisons, suites and evals of agenteval.",
        version="1",
        lifespan=lifespan,
        docs_url=None,  # the interactive docs load assets from a CDN: the document is enough offline
        redoc_url=None,
    )
    app.state.clients = clients
    app.state.authenticator = authenticator
    app.state.templates = Jinja2Templates(directory=HERE / "templates")
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    @app.exception_handler(errors.AgentEvalError)
    async def contract_error(request: Request, exc: errors.AgentEvalError) -> Response:
        code = status_of(exc)
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": type(exc).__name__, "message": str(exc)}, status_code=code)
        if code == 401:
            return RedirectResponse(f"/login?next={request.url.path}", status_code=303)
        return error_page(request, code, str(exc))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        from agenteval.runtime.grpc_server import internal

        message = internal(f"HTTP {request.method} {request.url.path}", exc)  # logged with an id
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": "Internal", "message": message}, status_code=500)
        return error_page(request, 500, message)

    @app.exception_handler(NeedsLogin)
    async def needs_login(request: Request, exc: NeedsLogin) -> Response:
        return RedirectResponse(f"/login?next={request.url.path}", status_code=303)

    from agenteval.gateway.web.api import router as api_router
    from agenteval.gateway.web.pages import router as pages_router

    app.include_router(api_router)
    app.include_router(pages_router)
    return app


def error_page(request: Request, code: int, message: str) -> HTMLResponse:
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(
        request, "error.html", {"code": code, "message": message}, status_code=code
    )


def credentials(request: Request) -> tuple[str, str]:
    """(token, project) of the request: the Authorization header or the login cookie."""
    header = request.headers.get("authorization", "")
    scheme, _, rest = header.partition(" ")
    token = rest.strip() if scheme.lower() == "bearer" else ""
    token = token or request.cookies.get(TOKEN_COOKIE, "")
    project = request.headers.get(PROJECT_HEADER, "") or request.query_params.get("project", "")
    return token, project


async def client_for(request: Request) -> Any:
    """The SDK client acting for this request's caller (checked here first, when tokens are on)."""
    token, project = credentials(request)
    authenticator: Authenticator | None = request.app.state.authenticator
    if authenticator is not None:
        metadata = [("authorization", f"Bearer {token}")] if token else []
        if project:
            metadata.append((PROJECT_HEADER, project))
        try:
            authenticator.caller(metadata)
        except errors.Unauthenticated:
            if not request.url.path.startswith("/api/"):
                raise NeedsLogin() from None
            raise
    return await request.app.state.clients.get(token, project)
