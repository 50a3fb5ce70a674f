"""The HTTP API over a real embedded stack, served by uvicorn and called with httpx: suites
stored and versioned, a run submitted and followed live (server-sent events), its results,
trials and transcripts, a comparison with its Markdown report, errors as statuses, tokens."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from agenteval.runtime.auth import TokenEntry, TokensFile, digest, write_tokens_file
from tests.gateway.web_stack import SUITE_YAML, web_stack


async def sse_events(client: httpx.AsyncClient, url: str) -> list[tuple[str, dict]]:
    events: list[tuple[str, dict]] = []
    async with client.stream("GET", url) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        kind = ""
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                events.append((kind, json.loads(line[6:])))
                if kind in ("completed", "failed", "cancelled", "error"):
                    break
    return events


async def test_suites_runs_live_events_results_and_compare(tmp_path: Path) -> None:
    async with (
        web_stack(tmp_path / "data") as (_, base),
        httpx.AsyncClient(base_url=base, timeout=60) as http,
    ):
        # Suites: stored, a new version on change, the same content is the same version.
        put = await http.put(
            "/api/v1/suites/web_suite", content=SUITE_YAML, headers={"content-type": "text/plain"}
        )
        assert put.status_code == 200, put.text
        assert put.json()["version"]["version"] == 1
        changed = SUITE_YAML.replace("trials: 2", "trials: 3")
        assert (await http.put("/api/v1/suites/web_suite", content=changed)).json()["version"]["version"] == 2
        again = (await http.put("/api/v1/suites/web_suite", content=changed)).json()
        assert again["version"]["version"] == 2 and not again.get("new_version")
        assert [s["name"] for s in (await http.get("/api/v1/suites")).json()] == ["web_suite"]
        assert [v["version"] for v in (await http.get("/api/v1/suites/web_suite/versions")).json()] == [2, 1]
        assert (
            "trials: 2"
            in (await http.get("/api/v1/suites/web_suite", params={"version": "1"})).json()["suite_yaml"]
        )
        diff = (await http.get("/api/v1/suites/web_suite/diff", params={"base": "1", "target": "2"})).json()
        assert [f["field"] for f in diff["suite_fields"]] == ["trials"]

        # A run of version 1, followed live until it completes.
        submitted = await http.post("/api/v1/runs", json={"suite": "web_suite@1", "agent_version": "a"})
        assert submitted.status_code == 201, submitted.text
        run = submitted.json()
        assert run["suite_version_number"] == 1 and run["trials_total"] == 4
        events = await sse_events(http, f"/api/v1/runs/{run['run_id']}/events")
        kinds = [k for k, _ in events]
        assert kinds[0] == "submitted" and kinds[-1] == "completed", kinds
        assert events[-1][1]["summary"]["trials"] == 4
        graded = [e["trials_graded"] for k, e in events if "trials_graded" in e]
        assert graded == sorted(graded) and graded[-1] == 4

        done = (await http.get(f"/api/v1/runs/{run['run_id']}")).json()
        assert done["status"] == "completed" and done["summary"]["trials"] == 4
        trials = (await http.get(f"/api/v1/runs/{run['run_id']}/trials")).json()
        assert len(trials) == 4 and all(t["trace"] is None for t in trials)
        trial = (await http.get(f"/api/v1/trials/{trials[0]['trial_id']}")).json()
        assert (
            trial["trace"]["output"] in ("heads", "tails") and trial["grades"][0]["name"] == "output_contains"
        )

        # Runs list with filters.
        other = (
            await http.post(
                "/api/v1/runs", json={"suite": "web_suite", "agent_version": "b", "tags": ["fast"]}
            )
        ).json()
        await sse_events(http, f"/api/v1/runs/{other['run_id']}/events")
        assert [
            r["agent_version"] for r in (await http.get("/api/v1/runs", params={"agent_version": "b"})).json()
        ] == ["b"]
        assert [r["run_id"] for r in (await http.get("/api/v1/runs", params={"tag": "fast"})).json()] == [
            other["run_id"]
        ]
        assert (await http.get("/api/v1/runs", params={"status": "failed"})).json() == []

        # Compare: the statistical document and the Markdown report.
        compared = (
            await http.get(
                "/api/v1/compare", params={"baseline": run["run_id"], "candidate": other["run_id"]}
            )
        ).json()
        assert compared["comparison"]["cases"] and isinstance(compared["passed"], bool)
        assert compared["markdown"].startswith("#") and "says_heads" in compared["markdown"]

        # Errors are statuses with a message, never a traceback.
        missing = await http.get("/api/v1/runs/run-nope-nope")
        assert missing.status_code == 404 and missing.json()["error"] == "NotFound"
        bad = await http.put("/api/v1/suites/broken", content="name: broken\ncases: 3\n")
        assert bad.status_code == 400 and "cases" in bad.json()["message"]
        assert (await http.post("/api/v1/runs", json={"suite": "nope"})).status_code == 404
        assert (await http.post("/api/v1/runs", json={"suite": "web_suite", "k": 0})).status_code == 422
        assert (await http.get("/api/v1/suites/web_suite/versions")).status_code == 200
        assert (await http.delete("/api/v1/suites/web_suite")).json()["versions_deleted"] == 2
        assert (await http.get("/api/v1/suites/web_suite")).status_code == 404

        # The OpenAPI document describes the API; nothing is fetched from another host.
        spec = (await http.get("/openapi.json")).json()
        assert {
            "/api/v1/runs",
            "/api/v1/runs/{run_id}/events",
            "/api/v1/compare",
            "/api/v1/suites/{name}",
        } <= set(spec["paths"])
        for page in ("/", "/runs", "/suites", "/evals", "/compare", f"/runs/{run['run_id']}"):
            html = (await http.get(page)).text
            assert not re.search(r"""(src|href|action)=["'](https?:)?//""", html), page
            assert "@import" not in html and "url(http" not in html, page


async def test_tokens_on_the_http_api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tokens = tmp_path / "tokens.yaml"
    write_tokens_file(
        tokens,
        TokensFile(
            tokens=[
                TokenEntry(name="a", sha256=digest("aev_a"), projects=["alpha"]),
                TokenEntry(name="b", sha256=digest("aev_b"), projects=["beta"]),
            ]
        ),
    )
    monkeypatch.setenv("AGENTEVAL_TOKENS_FILE", str(tokens))
    async with (
        web_stack(tmp_path / "data") as (_, base),
        httpx.AsyncClient(base_url=base, timeout=60) as http,
    ):
        assert (await http.get("/api/v1/runs")).status_code == 401
        assert (
            await http.get("/api/v1/runs", headers={"authorization": "Bearer aev_wrong"})
        ).status_code == 401
        alice = {"authorization": "Bearer aev_a"}
        bob = {"authorization": "Bearer aev_b"}
        assert (
            await http.put("/api/v1/suites/web_suite", content=SUITE_YAML, headers=alice)
        ).status_code == 200
        run = (await http.post("/api/v1/runs", json={"suite": "web_suite"}, headers=alice)).json()
        assert run["project"] == "alpha"
        assert (await http.get(f"/api/v1/runs/{run['run_id']}", headers=bob)).status_code == 404
        assert (await http.get("/api/v1/suites/web_suite", headers=bob)).status_code == 404
        assert (await http.get("/api/v1/runs", headers=bob)).json() == []
        assert (
            await http.get("/api/v1/runs", headers={**alice, "agenteval-project": "beta"})
        ).status_code == 403
        # Pages send a browser without a token to the login page.
        page = await http.get("/runs", follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"].startswith("/login")
