"""SuiteService over gRPC: a thin servicer over SuiteStore."""

from __future__ import annotations

from typing import Any

from agenteval.suite_store.repository import SuiteRow, VersionRow
from agenteval.suite_store.service import SuiteStore
from agenteval.suites import dump_suite_yaml
from agenteval.v1 import suites_pb2, suites_pb2_grpc

CHANGE_KIND = {
    "added": suites_pb2.CASE_CHANGE_KIND_ADDED,
    "removed": suites_pb2.CASE_CHANGE_KIND_REMOVED,
    "modified": suites_pb2.CASE_CHANGE_KIND_MODIFIED,
}


def version_to_pb(row: VersionRow, suite_yaml: str = "") -> suites_pb2.SuiteVersion:
    return suites_pb2.SuiteVersion(
        name=row.name,
        version=row.version,
        digest=row.digest,
        created_at=row.created_at.isoformat(),
        case_count=row.case_count,
        tags=row.tags,
        current=row.current,
        description=row.description,
        suite_yaml=suite_yaml,
    )


def suite_to_pb(row: SuiteRow) -> suites_pb2.StoredSuite:
    return suites_pb2.StoredSuite(
        name=row.name,
        current=version_to_pb(row.current),
        version_count=row.version_count,
        created_at=row.created_at.isoformat(),
        updated_at=row.updated_at.isoformat(),
    )


class SuiteServicer(suites_pb2_grpc.SuiteServiceServicer):
    def __init__(self, store: SuiteStore) -> None:
        self.store = store

    async def CreateSuite(
        self, request: suites_pb2.CreateSuiteRequest, context: Any
    ) -> suites_pb2.CreateSuiteResponse:
        return suites_pb2.CreateSuiteResponse(
            version=version_to_pb(await self.store.create(request.suite_yaml))
        )

    async def GetSuite(
        self, request: suites_pb2.GetSuiteRequest, context: Any
    ) -> suites_pb2.GetSuiteResponse:
        found = await self.store.get(request.name, request.version)
        return suites_pb2.GetSuiteResponse(version=version_to_pb(found.row, dump_suite_yaml(found.suite)))

    async def ListSuites(
        self, request: suites_pb2.ListSuitesRequest, context: Any
    ) -> suites_pb2.ListSuitesResponse:
        rows = await self.store.suites(request.tag, request.limit)
        return suites_pb2.ListSuitesResponse(suites=[suite_to_pb(r) for r in rows])

    async def UpdateSuite(
        self, request: suites_pb2.UpdateSuiteRequest, context: Any
    ) -> suites_pb2.UpdateSuiteResponse:
        row, new, previous = await self.store.update(
            request.name, request.suite_yaml, request.expected_version, request.allow_missing
        )
        return suites_pb2.UpdateSuiteResponse(
            version=version_to_pb(row), new_version=new, previous_version=previous
        )

    async def DeleteSuite(
        self, request: suites_pb2.DeleteSuiteRequest, context: Any
    ) -> suites_pb2.DeleteSuiteResponse:
        return suites_pb2.DeleteSuiteResponse(versions_deleted=await self.store.delete(request.name))

    async def ListSuiteVersions(
        self, request: suites_pb2.ListSuiteVersionsRequest, context: Any
    ) -> suites_pb2.ListSuiteVersionsResponse:
        rows = await self.store.versions(request.name, request.limit)
        return suites_pb2.ListSuiteVersionsResponse(versions=[version_to_pb(r) for r in rows])

    async def DiffSuites(
        self, request: suites_pb2.DiffSuitesRequest, context: Any
    ) -> suites_pb2.DiffSuitesResponse:
        base, target, diff = await self.store.diff(
            (request.base.name, request.base.version), (request.target.name, request.target.version)
        )
        return suites_pb2.DiffSuitesResponse(
            base=version_to_pb(base),
            target=version_to_pb(target),
            suite_fields=[
                suites_pb2.FieldChange(field=f.field, before_yaml=f.before, after_yaml=f.after)
                for f in diff.suite_fields
            ],
            cases=[
                suites_pb2.CaseChange(
                    case_id=c.case_id,
                    kind=CHANGE_KIND[c.kind],
                    fields=c.fields,
                    before_yaml=c.before,
                    after_yaml=c.after,
                    unified_diff=c.unified_diff,
                )
                for c in diff.cases
            ],
            unchanged_cases=diff.unchanged_cases,
            order_changed=diff.order_changed,
            identical=base.digest == target.digest,
        )
