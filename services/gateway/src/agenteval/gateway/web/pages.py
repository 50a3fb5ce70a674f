"""The dashboard's pages: overview, runs, a run, a trial's transcript, compare, suites, evals."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import parse_qs, quote

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from agenteval.contracts import errors
from agenteval.gateway.web import charts
from agenteval.gateway.web.api import save_suite, suite_diff
from agenteval.gateway.web.app import TOKEN_COOKIE, client_for, error_page
from agenteval.sdk import Client

router = APIRouter(include_in_schema=False)
Caller = Annotated[Client, Depends(client_for)]
MAX_FORM_BYTES = 2_000_000


def page(request: Request, template: str, **context: Any) -> HTMLResponse:
    return request.app.state.templates.TemplateResponse(request, template, context)


async def form(request: Request) -> dict[str, str]:
    """An urlencoded form's fields (the dashboard's forms post nothing else)."""
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise errors.InvalidArgument(f"the form is larger than {MAX_FORM_BYTES:,} bytes")
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True)
    except UnicodeDecodeError:
        raise errors.InvalidArgument("the form is not UTF-8") from None
    return {k: v[-1] for k, v in fields.items()}


@router.get("/", response_class=HTMLResponse)
async def overview(request: Request, client: Caller) -> HTMLResponse:
    runs = await client.list_runs(limit=200)
    series: dict[str, list[float]] = {}
    for r in reversed(runs):  # oldest first
        if r.status == "completed" and r.summary is not None:
            series.setdefault(f"{r.suite} · {r.agent_version}", []).append(r.summary.pass_rate)
    return page(
        request, "index.html", runs=runs[:15], trend=charts.trend({k: v[-20:] for k, v in series.items()})
    )


@router.get("/runs", response_class=HTMLResponse)
async def runs_page(
    request: Request,
    client: Caller,
    suite: str = "",
    agent_version: str = "",
    status: str = "",
    tag: str = "",
) -> HTMLResponse:
    runs = await client.list_runs(suite=suite or None, agent_version=agent_version or None, limit=200)
    runs = [r for r in runs if (not status or r.status == status) and (not tag or tag in r.tags)]
    filters = {"suite": suite, "agent_version": agent_version, "status": status, "tag": tag}
    return page(request, "runs.html", runs=runs, filters=filters)


@router.get("/runs/{run_id}", response_class=HTMLResponse)
async def run_page(request: Request, client: Caller, run_id: str) -> HTMLResponse:
    run = await client.get_run(run_id)
    trials = await client.trials(run.run_id, with_traces=False)
    summary = run.summary
    bars = ""
    if summary is not None:
        bars = charts.rate_bars(
            [(c.case_id, c.pass_rate, c.pass_rate_low, c.pass_rate_high) for c in summary.cases]
        )
    latency = charts.histogram([t.latency_ms for t in trials if t.status])
    # pass@1 and pass@k / pass^k at the run's largest k: the columns people read.
    ks = sorted({1, max(summary.pass_at_k)} & set(summary.pass_at_k)) if summary and summary.pass_at_k else []
    return page(
        request, "run.html", run=run, summary=summary, trials=trials, bars=bars, latency=latency, ks=ks
    )


@router.get("/trials/{trial_id:path}", response_class=HTMLResponse)
async def trial_page(request: Request, client: Caller, trial_id: str) -> HTMLResponse:
    trial = await client.trial(trial_id)
    return page(request, "trial.html", trial=trial, trace=trial.trace)


@router.get("/compare", response_class=HTMLResponse)
async def compare_page(
    request: Request, client: Caller, baseline: str = "", candidate: str = ""
) -> HTMLResponse:
    from agenteval.reports import comparison_report, render_comparison

    context: dict[str, Any] = {"baseline": baseline, "candidate": candidate, "report": None}
    if baseline and candidate:
        document = await client.compare(baseline, candidate)
        report = comparison_report(document)
        context.update(report=report, document=document, markdown=render_comparison(report, "markdown"))
    runs = [r for r in await client.list_runs(limit=50) if r.status == "completed"]
    return page(request, "compare.html", runs=runs, **context)


@router.get("/suites", response_class=HTMLResponse)
async def suites_page(request: Request, client: Caller, tag: str = "") -> HTMLResponse:
    return page(request, "suites.html", suites=await client.list_suites(tag=tag), tag=tag, error="", draft="")


@router.post("/suites", response_class=HTMLResponse)
async def create_suite(request: Request, client: Caller) -> Response:
    fields = await form(request)
    text = fields.get("suite_yaml", "")
    import yaml

    try:
        name = str((yaml.safe_load(text) or {}).get("name", ""))
    except (yaml.YAMLError, AttributeError):
        name = ""
    try:
        if not name:
            raise errors.InvalidArgument("the suite needs a `name:`")
        await save_suite(client, name, text)
    except (errors.InvalidArgument, errors.AlreadyExists) as exc:
        suites = await client.list_suites()
        return page(request, "suites.html", suites=suites, tag="", error=str(exc), draft=text)
    return RedirectResponse(f"/suites/{quote(name)}", status_code=303)


@router.get("/suites/{name}", response_class=HTMLResponse)
async def suite_page(
    request: Request, client: Caller, name: str, version: str = "", base: str = "", target: str = ""
) -> HTMLResponse:
    shown = await client.get_suite(name, version)
    versions = await client.suite_versions(name)
    diff = await suite_diff(client, name, base, target) if base else None
    runs = await client.list_runs(suite=name, limit=10)
    return page(
        request,
        "suite.html",
        suite=shown,
        versions=versions,
        diff=diff,
        runs=runs,
        error="",
        draft=shown.suite_yaml,
    )


@router.post("/suites/{name}", response_class=HTMLResponse)
async def edit_suite(request: Request, client: Caller, name: str) -> Response:
    fields = await form(request)
    text = fields.get("suite_yaml", "")
    try:
        expected = int(fields.get("expected_version") or 0)
        await save_suite(client, name, text, expected)
    except (errors.InvalidArgument, errors.Conflict, ValueError) as exc:
        shown = await client.get_suite(name)
        return page(
            request,
            "suite.html",
            suite=shown,
            versions=await client.suite_versions(name),
            diff=None,
            runs=await client.list_runs(suite=name, limit=10),
            error=str(exc),
            draft=text,
        )
    return RedirectResponse(f"/suites/{quote(name)}", status_code=303)


@router.post("/suites/{name}/run")
async def run_suite(request: Request, client: Caller, name: str) -> Response:
    fields = await form(request)
    try:
        k = int(fields["k"]) if fields.get("k") else None
    except ValueError:
        raise errors.InvalidArgument(f"k: {fields.get('k')!r} is not a whole number") from None
    version = fields.get("version", "")
    tags = [t.strip() for t in fields.get("tags", "").split(",") if t.strip()]
    run = await client.submit_stored(
        f"{name}@{version}" if version else name,
        agent=fields.get("agent", ""),
        k=k,
        agent_version=fields.get("agent_version", ""),
        tags=tags,
    )
    return RedirectResponse(f"/runs/{run.run_id}", status_code=303)


@router.get("/evals", response_class=HTMLResponse)
async def evals_page(request: Request, client: Caller, name: str = "", version: int = 0) -> HTMLResponse:
    evals = await client.list_evals()
    shown = await client.get_eval(name, version or None) if name else None
    return page(request, "evals.html", evals=evals, shown=shown)


@router.get("/login", response_class=HTMLResponse)
async def login_page(request: Request, next: str = "/") -> HTMLResponse:
    return page(request, "login.html", next=next if next.startswith("/") else "/", error="")


@router.post("/login", response_class=HTMLResponse)
async def login(request: Request) -> Response:
    fields = await form(request)
    token, target = fields.get("token", "").strip(), fields.get("next", "/")
    authenticator = request.app.state.authenticator
    if authenticator is not None:
        try:
            authenticator.caller([("authorization", f"Bearer {token}")])
        except (errors.Unauthenticated, errors.PermissionDenied) as exc:
            return page(request, "login.html", next=target, error=str(exc))
    response = RedirectResponse(target if target.startswith("/") else "/", status_code=303)
    response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
    return response


@router.post("/logout")
async def logout() -> Response:
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(TOKEN_COOKIE)
    return response


@router.get("/{path:path}", response_class=HTMLResponse)
async def not_found(request: Request, path: str) -> HTMLResponse:
    return error_page(request, 404, f"no page /{path}")
