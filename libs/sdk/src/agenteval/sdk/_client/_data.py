"""Stored suites, trials and labeled traces."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from agenteval.contracts import pb
from agenteval.contracts.records import (
    ImportReport,
    StoredSuiteInfo,
    SuitePush,
    SuiteVersionInfo,
    TraceInfo,
    TrialRecord,
)
from agenteval.contracts.suite import Suite
from agenteval.contracts.trace import TrialStatus
from agenteval.sdk._client._base import IMPORT_CHUNK_BYTES, _Base
from agenteval.v1 import (
    common_pb2,
    suites_pb2,
    transcripts_pb2,
)


class _Data(_Base):
    # -- stored suites -------------------------------------------------------------------
    async def push_suite(self, suite: Suite, expected_version: int = 0) -> SuitePush:
        """Store ``suite`` (created when new); the same content again is the same version.
        ``expected_version``: apply only if that is still the current version (Conflict else)."""
        request = suites_pb2.UpdateSuiteRequest(
            name=suite.name,
            suite_yaml=suite.model_dump_json(),  # JSON is YAML too, and much faster to read
            expected_version=expected_version,
            allow_missing=True,
        )
        return pb.suite_push_from_pb(await self._call(self._stubs.suites.UpdateSuite(request)))

    async def get_suite(self, name: str, version: str = "") -> SuiteVersionInfo:
        """A stored suite's version (the current one by default: a number, ``vN`` or a digest
        prefix), with its YAML."""
        request = suites_pb2.GetSuiteRequest(name=name, version=version)
        return pb.suite_version_from_pb((await self._call(self._stubs.suites.GetSuite(request))).version)

    async def list_suites(self, *, tag: str = "", limit: int = 0) -> list[StoredSuiteInfo]:
        """Stored suites by name with their current version (``tag``: only those with a case
        carrying it; ``limit`` 0: 100)."""
        request = suites_pb2.ListSuitesRequest(tag=tag, limit=limit)
        return [
            pb.stored_suite_from_pb(s)
            for s in (await self._call(self._stubs.suites.ListSuites(request))).suites
        ]

    async def suite_versions(self, name: str) -> list[SuiteVersionInfo]:
        """A stored suite's versions, newest first (without their content)."""
        request = suites_pb2.ListSuiteVersionsRequest(name=name)
        resp = await self._call(self._stubs.suites.ListSuiteVersions(request))
        return [pb.suite_version_from_pb(v) for v in resp.versions]

    # -- stored trials -------------------------------------------------------------------
    async def trials(
        self,
        run_id: str,
        *,
        case_id: str | None = None,
        status: TrialStatus | None = None,
        with_traces: bool = True,
        limit: int = 10_000,
        offset: int = 0,
    ) -> list[TrialRecord]:
        """A run's stored trials (by case and trial index) with their grades, and their transcripts
        unless ``with_traces`` is False."""
        request = transcripts_pb2.ListTrialsRequest(
            run_id=run_id,
            case_id=case_id or "",
            status=pb.TRIAL_STATUS_TO_PB[status] if status else common_pb2.TRIAL_STATUS_UNSPECIFIED,
            limit=limit,
            offset=offset,
            summary_only=not with_traces,
        )
        resp = await self._call(self._stubs.transcripts.ListTrials(request))
        return [pb.trial_from_pb(t) for t in resp.trials]

    async def trial(self, trial_id: str) -> TrialRecord:
        """One stored trial with its transcript and grades."""
        request = transcripts_pb2.GetTrialRequest(trial_id=trial_id)
        return pb.trial_from_pb((await self._call(self._stubs.transcripts.GetTrial(request))).trial)

    # -- labeled traces ------------------------------------------------------------------
    async def traces(
        self,
        dataset: str,
        *,
        label: str | None = None,
        trace_ids: Sequence[str] = (),
        labeled_only: bool = False,
        with_traces: bool = False,
        limit: int = 100,
        offset: int = 0,
    ) -> list[TraceInfo]:
        """A dataset's imported traces (by id): summaries, and the traces too with ``with_traces``."""
        request = transcripts_pb2.ListTracesRequest(
            dataset=dataset,
            label=label or "",
            trace_ids=list(trace_ids),
            labeled_only=labeled_only,
            with_traces=with_traces,
            limit=limit,
            offset=offset,
        )
        resp = await self._call(self._stubs.transcripts.ListTraces(request))
        return [pb.trace_info_from_pb(t) for t in resp.traces]

    async def trace(self, trace_id: str, dataset: str = "") -> TraceInfo:
        """One imported trace in full (of ``dataset``, or of any dataset holding that id)."""
        request = transcripts_pb2.GetTraceRequest(trace_id=trace_id, dataset=dataset)
        resp = await self._call(self._stubs.transcripts.GetTrace(request))
        return pb.trace_info_from_pb(resp.summary, resp.trace)

    async def import_traces(
        self, dataset: str, source: bytes | str | os.PathLike[str], *, format: str = "auto"
    ) -> ImportReport:
        """Import a trace file into ``dataset``: ``source`` is its content (bytes) or its path.

        ``format``: auto, jsonl, otlp, mlflow or langfuse. What could not be read is in the
        report's ``problems``, by line or record."""
        data = source if isinstance(source, bytes) else await asyncio.to_thread(Path(source).read_bytes)

        async def chunks() -> AsyncIterator[transcripts_pb2.ImportTracesRequest]:
            yield transcripts_pb2.ImportTracesRequest(
                dataset=dataset, format=format, chunk=data[:IMPORT_CHUNK_BYTES]
            )
            for start in range(IMPORT_CHUNK_BYTES, len(data), IMPORT_CHUNK_BYTES):
                yield transcripts_pb2.ImportTracesRequest(chunk=data[start : start + IMPORT_CHUNK_BYTES])

        resp = await self._call(self._stubs.transcripts.ImportTraces(chunks()))
        return pb.import_report_from_pb(resp)

    async def label_trace(
        self, trace_id: str, label: str, *, dataset: str, comment: str = "", rater: str = ""
    ) -> TraceInfo:
        """Set or change a trace's label: positive or negative (or good/bad, thumbs_up/thumbs_down,
        true/false, 1/0)."""
        request = transcripts_pb2.LabelTraceRequest(
            trace_id=trace_id, dataset=dataset, label=label, comment=comment, rater=rater
        )
        return pb.trace_info_from_pb((await self._call(self._stubs.transcripts.LabelTrace(request))).trace)
