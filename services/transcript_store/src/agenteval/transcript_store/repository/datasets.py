"""Imported traces and their human labels, in named, versioned datasets.

A dataset's version goes up with every import that adds a trace and every label
change, so a generated eval can name the exact data it learned from. The same trace
imported twice (same id) is one trace; its label is updated when the new one differs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, func, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from agenteval.contracts.errors import InvalidArgument, NotFound
from agenteval.importers import LABEL_HELP, LabelError, normalize_label
from agenteval.storage import insert_ignore
from agenteval.transcript_store.models import datasets, traces

DATASET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,199}$")


def check_dataset_name(name: str) -> str:
    if not DATASET_NAME.match(name or ""):
        raise InvalidArgument(f"invalid dataset name {name!r}: use letters, digits, _ . - (up to 200)")
    return name


def summarize(trace: dict[str, Any]) -> tuple[str, int, bool]:
    """(first 200 characters of the output, step count, has tool calls)."""
    steps = trace.get("steps") or []
    output = trace.get("output") or ""
    return str(output)[:200], len(steps), any(s.get("type") == "tool_call" for s in steps)


class DatasetRepository:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def project_of(self, dataset: str) -> str | None:
        """The project a dataset belongs to (None: no such dataset)."""
        async with self.engine.connect() as conn:
            found = await conn.execute(select(datasets.c.project).where(datasets.c.name == dataset))
            return found.scalar()

    async def import_traces(
        self, dataset: str, items: Sequence[Any], project: str = "default"
    ) -> tuple[int, int, int]:
        """Store imported traces; returns (imported, duplicates, dataset version). A new dataset
        belongs to ``project``."""
        check_dataset_name(dataset)
        now = datetime.now(UTC)
        async with self.engine.begin() as conn:
            existing = {
                row[0]: row[1]
                for row in await conn.execute(
                    select(traces.c.trace_id, traces.c.label).where(traces.c.dataset == dataset)
                )
            }
            new_rows: list[dict[str, Any]] = []
            relabel: list[tuple[str, str | None, str | None, str | None]] = []
            seen: set[str] = set()
            for item in items:
                if item.trace_id in seen:
                    continue
                seen.add(item.trace_id)
                if item.trace_id in existing:
                    if item.label is not None and item.label != existing[item.trace_id]:
                        relabel.append((item.trace_id, item.label, item.comment, item.rater))
                    continue
                doc = item.trace.to_eval_dict()
                summary, steps, has_tools = summarize(doc)
                new_rows.append(
                    {
                        "dataset": dataset,
                        "trace_id": item.trace_id,
                        "trace_json": item.trace.model_dump_json(),
                        "label": item.label,
                        "comment": item.comment,
                        "rater": item.rater,
                        "source_format": item.source_format,
                        "summary": summary,
                        "step_count": steps,
                        "has_tool_calls": has_tools,
                        "created_at": now,
                        "labeled_at": now if item.label else None,
                        "agent": item.agent,
                    }
                )
            if new_rows:
                await conn.execute(insert_ignore(self.engine, traces), new_rows)
            for trace_id, label, comment, rater in relabel:
                await self._set_label(conn, dataset, trace_id, label, comment, rater, now)
            version = await self._bump(conn, dataset, now, changed=bool(new_rows or relabel), project=project)
        return len(new_rows), len(items) - len(new_rows), version

    async def _set_label(
        self,
        conn: AsyncConnection,
        dataset: str,
        trace_id: str,
        label: str | None,
        comment: str | None,
        rater: str | None,
        now: datetime,
    ) -> int:
        res = await conn.execute(
            update(traces)
            .where(traces.c.dataset == dataset, traces.c.trace_id == trace_id)
            .values(label=label, comment=comment, rater=rater, labeled_at=now)
        )
        return int(res.rowcount or 0)

    async def _bump(
        self, conn: AsyncConnection, dataset: str, now: datetime, changed: bool, project: str = "default"
    ) -> int:
        await conn.execute(
            insert_ignore(self.engine, datasets),
            [{"name": dataset, "version": 0, "created_at": now, "updated_at": now, "project": project}],
        )
        if changed:
            await conn.execute(
                update(datasets)
                .where(datasets.c.name == dataset)
                .values(version=datasets.c.version + 1, updated_at=now)
            )
        return int(
            (await conn.execute(select(datasets.c.version).where(datasets.c.name == dataset))).scalar_one()
        )

    async def label(
        self, dataset: str, trace_id: str, label: str, comment: str | None = None, rater: str | None = None
    ) -> dict[str, Any]:
        """Set a trace's label, spelled any way an import accepts (good, thumbs_down, 0 ...)."""
        try:
            normalized = normalize_label(label)
        except LabelError as exc:
            raise InvalidArgument(str(exc)) from None
        if normalized is None:
            raise InvalidArgument(f"a label is required; {LABEL_HELP}")
        label = normalized
        now = datetime.now(UTC)
        async with self.engine.begin() as conn:
            if not await self._set_label(conn, dataset, trace_id, label, comment, rater, now):
                raise NotFound(f"no trace {trace_id!r} in dataset {dataset!r}")
            await self._bump(conn, dataset, now, changed=True)
        found = await self.get(dataset, trace_id)
        assert found is not None
        return found

    async def version(self, dataset: str) -> int:
        async with self.engine.connect() as conn:
            v = (await conn.execute(select(datasets.c.version).where(datasets.c.name == dataset))).scalar()
        if v is None:
            raise NotFound(f"no dataset {dataset!r}")
        return int(v)

    async def list(
        self,
        dataset: str,
        label: str | None = None,
        limit: int = 20,
        offset: int = 0,
        trace_ids: Sequence[str] = (),
        labeled_only: bool = False,
        agent: str | None = None,
    ) -> tuple[list[dict[str, Any]], int]:
        """A page of a dataset's traces, by label, ids, labeled or not and the agent they came from."""
        await self.version(dataset)  # NotFound for an unknown dataset
        cond = [traces.c.dataset == dataset]
        if agent:
            cond.append(traces.c.agent == agent.strip())
        if label:
            try:
                wanted = normalize_label(label)
            except LabelError as exc:
                raise InvalidArgument(f"label filter: {exc}") from None
            if wanted is None:
                raise InvalidArgument(f"label filter is blank; {LABEL_HELP}")
            cond.append(traces.c.label == wanted)
        if labeled_only:
            cond.append(traces.c.label.is_not(None))
        if trace_ids:
            cond.append(traces.c.trace_id.in_(list(trace_ids)))
        q = (
            select(traces)
            .where(and_(*cond))
            .order_by(traces.c.trace_id)
            .limit(max(1, min(limit or 20, 100_000)))
            .offset(max(0, offset))
        )
        async with self.engine.connect() as conn:
            rows = [dict(r) for r in (await conn.execute(q)).mappings().all()]
            total = (
                await conn.execute(select(func.count()).select_from(traces).where(and_(*cond)))
            ).scalar_one()
        return rows, int(total)

    async def get(self, dataset: str, trace_id: str) -> dict[str, Any] | None:
        cond = [traces.c.trace_id == trace_id]
        if dataset:
            cond.append(traces.c.dataset == dataset)
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(traces).where(*cond).limit(1))).mappings().first()
        return dict(row) if row else None
