"""The suite store's domain: suites checked at the edge, stored as immutable versions
addressed by their content, read back as suite files, compared case by case."""

from __future__ import annotations

import json
from dataclasses import dataclass

from agenteval.contracts.errors import AlreadyExists, InvalidArgument, NotFound
from agenteval.contracts.suite import GraderSpec, Suite
from agenteval.runtime import auth
from agenteval.suite_store import instruments
from agenteval.suite_store.repository import NewVersion, SuiteRepository, SuiteRow, VersionRow
from agenteval.suite_store.settings import SuiteStoreSettings
from agenteval.suites import (
    SuiteDiff,
    canonical_json,
    case_digest,
    check_stored_name,
    check_version,
    diff_suites,
    loads_suite,
    suite_data,
    suite_digest,
)
from agenteval.suites._canonical import case_data

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000


@dataclass
class Stored:
    """A version and, when read, its content."""

    row: VersionRow
    suite: Suite


def _limit(limit: int) -> int:
    if limit < 0:
        raise InvalidArgument(f"limit: must not be negative, got {limit}")
    return min(limit or DEFAULT_LIMIT, MAX_LIMIT)


def _path_graders(suite: Suite) -> list[str]:
    """Eval functions given by a file path: the store cannot read the pusher's files."""

    def bad(spec: GraderSpec) -> bool:
        return spec.name == "eval_function" and bool(spec.params.get("path"))

    found = [f"graders[{i}]" for i, s in enumerate(suite.graders) if bad(s)]
    for ci, case in enumerate(suite.cases):
        found += [f"cases[{ci}] (id {case.id!r}): graders[{i}]" for i, s in enumerate(case.graders) if bad(s)]
    return found


class SuiteStore:
    def __init__(self, repo: SuiteRepository, settings: SuiteStoreSettings) -> None:
        self.repo = repo
        self.settings = settings

    # -- the edge ------------------------------------------------------------------------
    def parse(self, text: str, field: str = "suite_yaml") -> Suite:
        """Check and read a suite's text; InvalidArgument names the field and what is wrong."""
        if not text.strip():
            raise InvalidArgument(f"{field}: empty; give the text of a suite file")
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > self.settings.max_suite_bytes:
            raise InvalidArgument(
                f"{field}: {size:,} bytes, more than the {self.settings.max_suite_bytes:,} a suite may have"
            )
        suite = loads_suite(text, field)
        check_stored_name(suite.name, f"{field}: name")
        if len(suite.cases) > self.settings.max_cases:
            raise InvalidArgument(
                f"{field}: {len(suite.cases):,} cases, more than the {self.settings.max_cases:,} a suite may have"
            )
        paths = _path_graders(suite)
        if paths:
            raise InvalidArgument(
                f"{field}: {paths[0]}: an eval_function given by path cannot be read by the suite store; "
                "push the suite file with `agent-eval suites push`, which puts the code in, or give code:"
            )
        return suite

    @staticmethod
    def new_version(suite: Suite) -> NewVersion:
        header = {k: v for k, v in suite_data(suite).items() if k != "cases"}
        return NewVersion(
            name=suite.name,
            digest=suite_digest(suite),
            header_json=canonical_json(header),
            description=suite.description,
            tags=sorted({t for c in suite.cases for t in c.tags}),
            cases=[(c.id, case_digest(c), canonical_json(case_data(c))) for c in suite.cases],
        )

    # -- writing -------------------------------------------------------------------------
    async def _visible(self, name: str) -> None:
        """NotFound for another project's suite (it looks missing)."""
        owner = await self.repo.project_of(name)
        if owner is not None and not auth.current().sees(owner):
            raise NotFound(f"no stored suite {name!r}")

    async def create(self, text: str) -> VersionRow:
        new = self.new_version(self.parse(text))
        owner = await self.repo.project_of(new.name)
        if owner is not None and not auth.current().sees(owner):
            raise AlreadyExists(f"the suite name {new.name!r} is taken (names are unique on this server)")
        row, _, _ = await self.repo.store(
            new, create=True, update_existing=False, project=auth.current().project
        )
        instruments.VERSIONS_STORED.inc()
        return row

    async def update(
        self, name: str, text: str, expected_version: int = 0, allow_missing: bool = False
    ) -> tuple[VersionRow, bool, int]:
        """(the version now current, whether it is new, the version current before)."""
        check_stored_name(name, "name")
        if expected_version < 0:
            raise InvalidArgument(f"expected_version: must not be negative, got {expected_version}")
        suite = self.parse(text)
        if suite.name != name:
            raise InvalidArgument(
                f"suite_yaml: name: the content is suite {suite.name!r}, the request updates {name!r} "
                "(a suite is not renamed: create one under the new name)"
            )
        owner = await self.repo.project_of(name)
        if owner is not None and not auth.current().sees(owner):
            if not allow_missing:
                raise NotFound(f"no stored suite {name!r}")
            raise AlreadyExists(f"the suite name {name!r} is taken (names are unique on this server)")
        row, new, previous = await self.repo.store(
            self.new_version(suite),
            create=allow_missing,
            update_existing=True,
            expected_version=expected_version,
            project=auth.current().project,
        )
        if new:
            instruments.VERSIONS_STORED.inc()
        return row, new, previous

    async def delete(self, name: str) -> int:
        check_stored_name(name, "name")
        await self._visible(name)
        return await self.repo.delete(name)

    # -- reading -------------------------------------------------------------------------
    async def resolve(self, name: str, version: str = "", field: str = "") -> VersionRow:
        """The version ``version`` of suite ``name`` (its current one for "")."""
        prefix = f"{field}." if field else ""
        check_stored_name(name, f"{prefix}name")
        version = version.strip().lower()
        check_version(version, f"{prefix}version")
        await self._visible(name)
        if not version:
            found = await self.repo.find_versions(name)
        elif version.lstrip("v").isdigit() and len(version.lstrip("v")) <= 6:
            found = await self.repo.find_versions(name, number=int(version.lstrip("v")))
        else:
            found = await self.repo.find_versions(name, digest_prefix=version)
        if len(found) > 1:
            raise InvalidArgument(
                f"{prefix}version: {version!r} is the start of more than one version's digest of suite "
                f"{name!r}; give more digits"
            )
        if found:
            return found[0]
        if await self.repo.current_version(name) is None:
            raise NotFound(f"no stored suite {name!r}")
        raise NotFound(f"suite {name!r} has no version {version!r} (agent-eval suites versions {name})")

    async def content(self, row: VersionRow) -> Suite:
        header = json.loads(row.header_json)
        texts = await self.repo.case_texts(row.name, row.version)
        return Suite.model_validate({**header, "cases": [json.loads(t) for t in texts]})

    async def get(self, name: str, version: str = "") -> Stored:
        row = await self.resolve(name, version)
        return Stored(row, await self.content(row))

    async def suites(self, tag: str = "", limit: int = 0) -> list[SuiteRow]:
        if "\x00" in tag:
            raise InvalidArgument("tag: contains a NUL byte")
        return await self.repo.list_suites(tag, _limit(limit), auth.current().visible)

    async def versions(self, name: str, limit: int = 0) -> list[VersionRow]:
        check_stored_name(name, "name")
        await self._visible(name)
        return await self.repo.list_versions(name, _limit(limit))

    async def diff(
        self, base: tuple[str, str], target: tuple[str, str]
    ) -> tuple[VersionRow, VersionRow, SuiteDiff]:
        a = await self.get(*self._ref(base, "base"))
        b = await self.get(*self._ref(target, "target"))
        label_a, label_b = f"{a.row.name}@{a.row.version}", f"{b.row.name}@{b.row.version}"
        return a.row, b.row, diff_suites(a.suite, b.suite, label_a, label_b)

    def _ref(self, ref: tuple[str, str], field: str) -> tuple[str, str]:
        if not ref[0]:
            raise InvalidArgument(f"{field}.name: missing; name the suite to compare")
        check_stored_name(ref[0], f"{field}.name")
        check_version(ref[1].strip().lower(), f"{field}.version")
        return ref
