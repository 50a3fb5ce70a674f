"""``/api/v1``: JSON for scripts and the dashboard's live parts (server-sent events)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Query
from fastapi.responses import StreamingResponse
from google.protobuf.json_format import MessageToDict
from pydantic import BaseModel, Field

from agenteval.contracts import errors
from agenteval.gateway.web.app import client_for
from agenteval.sdk import Client

router = APIRouter(prefix="/api/v1", tags=["agenteval"])
Caller = Annotated[Client, Depends(client_for)]


def _dump(model: Any) -> Any:
    return model.model_dump(mode="json") if hasattr(model, "model_dump") else model


# -- runs ---------------------------------------------------------------------------------
class SubmitRun(BaseModel):
    """A run of a stored suite: NAME or NAME@VERSION."""

    suite: str = Field(min_length=1, max_length=300, examples=["support@2"])
    agent: str = Field(default="", max_length=500, description="Agent spec; empty: the suite's own.")
    k: int | None = Field(default=None, ge=1, le=1000)
    agent_version: str = Field(default="", max_length=200)
    tags: list[str] = Field(default_factory=list, description="Only the cases carrying one of these tags.")


@router.get("/runs", summary="Runs, newest first")
async def list_runs(
    client: Caller,
    suite: str | None = None,
    agent_version: str | None = None,
    status: str | None = None,
    tag: str | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
) -> list[dict[str, Any]]:
    runs = await client.list_runs(suite=suite or None, agent_version=agent_version or None, limit=limit)
    return [_dump(r) for r in runs if (not status or r.status == status) and (not tag or tag in r.tags)]


@router.post("/runs", status_code=201, summary="Submit a run of a stored suite")
async def submit_run(client: Caller, body: SubmitRun) -> dict[str, Any]:
    run = await client.submit_stored(
        body.suite, agent=body.agent, k=body.k, agent_version=body.agent_version, tags=body.tags
    )
    return _dump(run)


@router.get("/runs/{run_id}", summary="A run, with its summary once completed")
async def get_run(client: Caller, run_id: str) -> dict[str, Any]:
    return _dump(await client.get_run(run_id))


@router.post("/runs/{run_id}/cancel", summary="Cancel a run")
async def cancel_run(client: Caller, run_id: str) -> dict[str, Any]:
    return _dump(await client.cancel_run(run_id))


@router.get("/runs/{run_id}/trials", summary="A run's trials (without transcripts)")
async def run_trials(client: Caller, run_id: str, case: str | None = None) -> list[dict[str, Any]]:
    run = await client.get_run(run_id)
    return [_dump(t) for t in await client.trials(run.run_id, case_id=case or None, with_traces=False)]


@router.get("/trials/{trial_id:path}", summary="One trial with its transcript and grades")
async def get_trial(client: Caller, trial_id: str) -> dict[str, Any]:
    return _dump(await client.trial(trial_id))


@router.get("/runs/{run_id}/events", summary="Live progress (server-sent events) until the run ends")
async def run_events(client: Caller, run_id: str) -> StreamingResponse:
    run = await client.get_run(run_id)  # 404 now, not inside the stream

    async def events() -> AsyncIterator[str]:
        try:
            async for ev in client.watch(run.run_id):
                doc = MessageToDict(ev, preserving_proto_field_name=True)
                doc.pop("trials", None)
                doc["type"] = doc.get("type", "").removeprefix("RUN_EVENT_TYPE_").lower()
                yield f"event: {doc['type']}\ndata: {json.dumps(doc)}\n\n"
        except errors.AgentEvalError as exc:
            yield f"event: error\ndata: {json.dumps({'message': str(exc)})}\n\n"

    return StreamingResponse(events(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})


@router.get("/compare", summary="Compare a candidate run with a baseline (ids or agent versions)")
async def compare(client: Caller, baseline: str, candidate: str) -> dict[str, Any]:
    from agenteval.reports import comparison_report, render_comparison

    document = await client.compare(baseline, candidate)
    report = comparison_report(document)
    return {
        "comparison": document,
        "passed": report.passed,
        "markdown": render_comparison(report, "markdown"),
    }


# -- suites -------------------------------------------------------------------------------
@router.get("/suites", summary="Stored suites")
async def list_suites(client: Caller, tag: str = "") -> list[dict[str, Any]]:
    return [_dump(s) for s in await client.list_suites(tag=tag)]


@router.get("/suites/{name}", summary="A suite's version (its current one by default), with its YAML")
async def get_suite(client: Caller, name: str, version: str = "") -> dict[str, Any]:
    return _dump(await client.get_suite(name, version))


@router.get("/suites/{name}/versions", summary="Every version of a suite, newest first")
async def suite_versions(client: Caller, name: str) -> list[dict[str, Any]]:
    return [_dump(v) for v in await client.suite_versions(name)]


@router.put("/suites/{name}", summary="Store a suite's YAML (created when new); same content, same version")
async def put_suite(
    client: Caller,
    name: str,
    suite_yaml: Annotated[str, Body(media_type="text/plain", max_length=2_000_000)],
    expected_version: int = 0,
) -> dict[str, Any]:
    return await save_suite(client, name, suite_yaml, expected_version)


async def save_suite(client: Client, name: str, suite_yaml: str, expected_version: int = 0) -> dict[str, Any]:
    from agenteval.v1 import suites_pb2

    request = suites_pb2.UpdateSuiteRequest(
        name=name, suite_yaml=suite_yaml, expected_version=expected_version, allow_missing=True
    )
    resp = await client._call(client._stubs.suites.UpdateSuite(request))
    return MessageToDict(resp, preserving_proto_field_name=True)


@router.delete("/suites/{name}", summary="Delete a suite and every version of it")
async def delete_suite(client: Caller, name: str) -> dict[str, Any]:
    from agenteval.v1 import suites_pb2

    resp = await client._call(client._stubs.suites.DeleteSuite(suites_pb2.DeleteSuiteRequest(name=name)))
    return MessageToDict(resp, preserving_proto_field_name=True)


@router.get("/suites/{name}/diff", summary="What changed between two versions of a suite")
async def diff_suite(client: Caller, name: str, base: str, target: str = "") -> dict[str, Any]:
    return await suite_diff(client, name, base, target)


async def suite_diff(client: Client, name: str, base: str, target: str) -> dict[str, Any]:
    from agenteval.v1 import suites_pb2

    request = suites_pb2.DiffSuitesRequest(
        base=suites_pb2.SuiteRef(name=name, version=base),
        target=suites_pb2.SuiteRef(name=name, version=target),
    )
    resp = await client._call(client._stubs.suites.DiffSuites(request))
    return MessageToDict(resp, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


# -- evals --------------------------------------------------------------------------------
@router.get("/evals", summary="Saved eval functions (every version)")
async def list_evals(client: Caller) -> list[dict[str, Any]]:
    return [_dump(e) for e in await client.list_evals()]


@router.get("/evals/{name}", summary="A saved eval with its code")
async def get_eval(client: Caller, name: str, version: int | None = None) -> dict[str, Any]:
    return _dump(await client.get_eval(name, version))
