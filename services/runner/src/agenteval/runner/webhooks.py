"""Webhooks: when a run completes, and when it regressed from the suite's previous agent
version, POST a signed JSON payload to each configured URL, with retries and a delivery log.

Configured by a file (``AGENTEVAL_RUNNER_WEBHOOKS_FILE``, YAML or JSON, read and checked at
start-up)::

    webhooks:
      - url: https://ci.example.com/agenteval
        secret: a-shared-secret
        events: [run.completed, regression.detected]   # default: both

Each POST carries ``X-Agenteval-Event``, ``X-Agenteval-Delivery`` (the same on every try),
``X-Agenteval-Timestamp`` and ``X-Agenteval-Signature: sha256=<hex>``, the HMAC-SHA256 of the
exact body with the secret. A try that gets no 2xx is tried again with doubling waits, up to
``attempts`` tries; every try is recorded (``agent-eval webhooks deliveries``). A delivery is
made once per run and URL, also when run.completed reaches the runner twice.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import httpx
from pydantic import BaseModel, Field, ValidationError, field_validator
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from agenteval.contracts.summary import RunSummary
from agenteval.runner.models import webhook_deliveries
from agenteval.storage import insert_ignore

log = logging.getLogger("agenteval.runner.webhooks")
Event = Literal["run.completed", "regression.detected"]
ALL_EVENTS: tuple[Event, ...] = ("run.completed", "regression.detected")


class WebhookTarget(BaseModel):
    url: str
    secret: str = Field(min_length=8)
    events: list[Event] = Field(default_factory=lambda: list(ALL_EVENTS))

    @field_validator("url")
    @classmethod
    def _http(cls, url: str) -> str:
        if not url.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")
        return url


class WebhooksFile(BaseModel):
    webhooks: list[WebhookTarget]


def load_webhooks(path: Path) -> list[WebhookTarget]:
    """The webhooks a file configures; ValueError with a one-line reason when it is wrong."""
    import yaml

    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"webhooks file {path}: cannot read it: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"webhooks file {path}: not YAML/JSON: {exc}") from None
    try:
        return WebhooksFile.model_validate(doc).webhooks
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ValueError(f"webhooks file {path}: {where}: {first['msg']}") from None


def sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class Webhooks:
    def __init__(
        self, targets: list[WebhookTarget], engine: AsyncEngine, attempts: int = 6, first_wait_s: float = 0.5
    ) -> None:
        self.targets = targets
        self.engine = engine
        self.attempts = attempts
        self.first_wait_s = first_wait_s
        self._tasks: set[asyncio.Task[None]] = set()
        self._client: httpx.AsyncClient | None = None

    async def notify(self, event: Event, run_id: str, payload: dict[str, Any]) -> None:
        """Start delivering ``event`` to every target that wants it (once per run and URL)."""
        for target in self.targets:
            if event not in target.events:
                continue
            url_id = hashlib.sha256(target.url.encode()).hexdigest()[:12]
            delivery_id = f"{event}:{run_id}:{url_id}"
            now = datetime.now(UTC)
            row = {
                "delivery_id": delivery_id,
                "event": event,
                "url": target.url,
                "run_id": run_id,
                "attempts": 0,
                "status": "pending",
                "last_status_code": 0,
                "last_error": "",
                "created_at": now,
                "updated_at": now,
            }
            async with self.engine.begin() as conn:
                added = (await conn.execute(insert_ignore(self.engine, webhook_deliveries), [row])).rowcount
            if not added:
                continue  # delivered (or being delivered) already
            body = json.dumps(
                {"event": event, "delivery_id": delivery_id, "run_id": run_id, **payload}, default=str
            ).encode()
            task = asyncio.create_task(self._deliver(delivery_id, target, event, body))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _deliver(self, delivery_id: str, target: WebhookTarget, event: str, body: bytes) -> None:
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=10.0)
        wait = self.first_wait_s
        for attempt in range(1, self.attempts + 1):
            headers = {
                "Content-Type": "application/json",
                "X-Agenteval-Event": event,
                "X-Agenteval-Delivery": delivery_id,
                "X-Agenteval-Timestamp": str(int(time.time())),
                "X-Agenteval-Signature": sign(target.secret, body),
            }
            code, error = 0, ""
            try:
                resp = await self._client.post(target.url, content=body, headers=headers)
                code = resp.status_code
                if not resp.is_success:
                    error = f"HTTP {code}: {resp.text[:200]}"
            except httpx.HTTPError as exc:
                error = f"{type(exc).__name__}: {exc}"[:500]
            done = not error
            status = "delivered" if done else ("failed" if attempt == self.attempts else "pending")
            await self._record(delivery_id, attempt, status, code, error)
            if done:
                return
            if attempt < self.attempts:
                await asyncio.sleep(wait)
                wait *= 2
        log.warning("webhook %s to %s failed after %d tries", delivery_id, target.url, self.attempts)

    async def _record(self, delivery_id: str, attempts: int, status: str, code: int, error: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                update(webhook_deliveries)
                .where(webhook_deliveries.c.delivery_id == delivery_id)
                .values(
                    attempts=attempts,
                    status=status,
                    last_status_code=code,
                    last_error=error,
                    updated_at=datetime.now(UTC),
                )
            )

    async def deliveries(self, run_id: str = "", limit: int = 50) -> list[dict[str, Any]]:
        q = select(webhook_deliveries).order_by(webhook_deliveries.c.created_at.desc())
        if run_id:
            q = q.where(webhook_deliveries.c.run_id == run_id)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(q.limit(max(1, min(limit or 50, 1000))))).mappings().all()
        return [dict(r) for r in rows]

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._client is not None:
            await self._client.aclose()


def completed_payload(summary: RunSummary) -> dict[str, Any]:
    return {"summary": summary.model_dump(mode="json")}
