"""The transcript store's domain: trials of runs as stored, and imported traces with their
human labels in versioned datasets. Returns contract models; no transport here."""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

from agenteval.contracts.errors import AlreadyExists, InvalidArgument, NotFound
from agenteval.contracts.events import GradeRecord, TrialCompleted, TrialGraded
from agenteval.contracts.records import ImportReport, TraceInfo, TrialRecord
from agenteval.contracts.trace import Trace
from agenteval.runtime import auth
from agenteval.transcript_store.repository import DatasetRepository, TranscriptRepository
from agenteval.transcript_store.repository.datasets import check_dataset_name

MAX_IMPORT_BYTES = 1024 * 1024 * 1024


def trial_record(row: dict[str, Any], with_trace: bool = True) -> TrialRecord:
    """A stored trial row as clients see it; the grades are GradeRecord dicts as JSON, none until graded."""
    grades = row["grades_json"]
    trace = row["trace_json"]
    return TrialRecord(
        trial_id=row["trial_id"],
        run_id=row["run_id"],
        case_id=row["case_id"],
        trial_index=row["trial_index"],
        status=row["status"] or None,
        latency_ms=row["latency_ms"] or 0.0,
        created_at=row["created_at"],
        passed=row["passed"],
        score=row["score"],
        grades=[GradeRecord.model_validate(g) for g in json.loads(grades)] if grades else [],
        trace=Trace.model_validate_json(trace) if with_trace and trace else None,
    )


def trace_info(row: dict[str, Any], version: int = 0, with_trace: bool = False) -> TraceInfo:
    """A stored imported trace as clients see it."""
    return TraceInfo(
        trace_id=row["trace_id"],
        dataset=row["dataset"],
        label=row["label"] or None,
        summary=row["summary"],
        step_count=row["step_count"],
        has_tool_calls=row["has_tool_calls"],
        comment=row["comment"] or None,
        rater=row["rater"] or None,
        dataset_version=version,
        trace=Trace.model_validate_json(row["trace_json"]) if with_trace else None,
    )


class TranscriptService:
    def __init__(self, repo: TranscriptRepository, datasets: DatasetRepository) -> None:
        self.repo = repo
        self.datasets = datasets

    # -- trials of runs (from the bus) ---------------------------------------------------
    async def store_completed(self, batch: list[TrialCompleted]) -> None:
        await self.repo.store_completed(batch)

    async def store_graded(self, batch: list[TrialGraded]) -> None:
        await self.repo.store_graded(batch)

    async def trial(self, trial_id: str) -> TrialRecord:
        row = await self.repo.get_trial(trial_id)
        if row is None or row["trace_json"] is None or not auth.current().sees(row.get("project")):
            raise NotFound(f"no stored trial {trial_id!r}")
        return trial_record(row)

    async def trials(
        self,
        run_id: str,
        case_id: str | None,
        status: str | None,
        limit: int,
        offset: int,
        with_traces: bool = True,
    ) -> tuple[list[TrialRecord], int]:
        rows, total = await self.repo.list_trials(
            run_id, case_id, status, limit, offset, projects=auth.current().projects
        )
        return [trial_record(r, with_traces) for r in rows], total

    # -- imported traces and labels ------------------------------------------------------
    async def import_traces(self, dataset: str, fmt: str, data: bytes) -> ImportReport:
        from agenteval.importers import ImportFormat, import_traces

        if len(data) > MAX_IMPORT_BYTES:
            raise InvalidArgument(f"import larger than {MAX_IMPORT_BYTES // 2**20} MiB: split the file")
        check_dataset_name(dataset)
        caller = auth.current()
        owner = await self.datasets.project_of(dataset)
        if owner is not None and not caller.sees(owner):
            raise AlreadyExists(
                f"dataset name {dataset!r} is taken (names are unique on this server): choose another"
            )
        # The client's format name as given: import_traces rejects unknown ones (UnknownTraceFormat).
        result = await asyncio.to_thread(import_traces, data, cast("ImportFormat", fmt))
        imported, duplicates, version = await self.datasets.import_traces(
            dataset, result.traces, owner or caller.project
        )
        return ImportReport(
            dataset=dataset,
            dataset_version=version,
            imported=imported,
            duplicates=duplicates,
            problems=result.problems,
            format=result.format,
        )

    async def traces(
        self,
        dataset: str,
        label: str | None,
        limit: int,
        offset: int,
        trace_ids: list[str],
        labeled_only: bool,
        agent: str | None,
        with_traces: bool,
    ) -> tuple[list[TraceInfo], int]:
        await self._visible(dataset)
        rows, total = await self.datasets.list(dataset, label, limit, offset, trace_ids, labeled_only, agent)
        version = await self.datasets.version(dataset)
        return [trace_info(r, version, with_traces) for r in rows], total

    async def _visible(self, dataset: str) -> None:
        """NotFound for a dataset that does not exist, or is another project's."""
        owner = await self.datasets.project_of(dataset)
        if owner is None or not auth.current().sees(owner):
            raise NotFound(f"no dataset {dataset!r}")

    async def trace(self, dataset: str, trace_id: str) -> tuple[TraceInfo, Trace]:
        row = await self.datasets.get(dataset, trace_id)
        if row is not None and not auth.current().sees(await self.datasets.project_of(row["dataset"])):
            row = None
        if row is None:
            raise NotFound(f"no trace {trace_id!r}" + (f" in dataset {dataset!r}" if dataset else ""))
        return trace_info(row), Trace.model_validate_json(row["trace_json"])

    async def label(
        self, dataset: str, trace_id: str, label: str, comment: str | None, rater: str | None
    ) -> TraceInfo:
        await self._visible(dataset)
        row = await self.datasets.label(dataset, trace_id, label, comment, rater)
        return trace_info(row, await self.datasets.version(dataset))
