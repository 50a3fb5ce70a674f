"""SuiteService over a real gRPC server, on SQLite and on PostgreSQL: versions are immutable and
addressed by their content, bad input is INVALID_ARGUMENT naming the field, and a refused
request stores nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest
import yaml

from agenteval.runtime.grpc_server import GrpcServer
from agenteval.runtime.settings import CommonSettings
from agenteval.sdk import Client
from agenteval.suite_store.app import SuiteStoreComponent
from agenteval.suite_store.settings import SuiteStoreSettings
from agenteval.suites import loads_suite, suite_digest
from agenteval.v1 import suites_pb2

SUITE = """\
name: support
trials: 3
graders:
  - max_steps: {max: 8}
cases:
  - id: refund_small
    input: Please refund order A1001
    tags: [fast]
    graders:
      - tool_called: {tool: issue_refund}
  - id: no_refund
    input: Refund my order A1002
    tags: [negative, slow]
    graders:
      - tool_not_called: {tool: issue_refund}
  - id: greeting
    input: Hello
"""


def edited(text: str, change) -> str:  # type: ignore[no-untyped-def]
    data = yaml.safe_load(text)
    change(data)
    return yaml.safe_dump(data, sort_keys=False)


@pytest.fixture
async def suites(db_url: str, tmp_path) -> AsyncIterator[Client]:  # type: ignore[no-untyped-def]
    component = SuiteStoreComponent(
        CommonSettings(data_dir=tmp_path, database_url=db_url),
        SuiteStoreSettings(max_suite_bytes=64 * 1024, max_cases=50),
    )
    await component.prepare()
    server = GrpcServer()
    component.register_grpc(server)
    await server.start()
    try:
        async with Client(server.target) as client:
            yield client
    finally:
        await server.stop()
        await component.close()


async def update(client: Client, text: str, name: str = "support", **kw) -> suites_pb2.UpdateSuiteResponse:  # type: ignore[no-untyped-def]
    req = suites_pb2.UpdateSuiteRequest(name=name, suite_yaml=text, allow_missing=True, **kw)
    return await client._stubs.suites.UpdateSuite(req)


async def invalid(call) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, info.value.details()
    return info.value.details() or ""


async def test_versions_are_content_addressed_and_immutable(suites: Client) -> None:
    created = await suites._stubs.suites.CreateSuite(suites_pb2.CreateSuiteRequest(suite_yaml=SUITE))
    v1 = created.version
    assert (v1.name, v1.version, v1.case_count, v1.current) == ("support", 1, 3, True)
    assert v1.digest == suite_digest(loads_suite(SUITE))
    assert list(v1.tags) == ["fast", "negative", "slow"]

    # The same content, written another way (long-form graders, defaults spelled out, other
    # key order), is the same version: nothing is stored.
    same = edited(
        SUITE,
        lambda d: (
            d.update(timeout_s=60.0),
            d["cases"][2].update(input=[{"role": "user", "content": "Hello"}], tags=[]),
            d["cases"][0].update(graders=[{"name": "tool_called", "params": {"tool": "issue_refund"}}]),
        ),
    )
    again = await update(suites, same)
    assert not again.new_version and again.version.version == 1 and again.previous_version == 1
    assert again.version.digest == v1.digest

    changed = edited(SUITE, lambda d: d["cases"][0].update(input="Please refund order A1001 now"))
    v2 = await update(suites, changed)
    assert v2.new_version and (v2.version.version, v2.previous_version) == (2, 1)
    assert v2.version.digest != v1.digest

    # Version 1 is what it was, byte for byte, after version 2 was stored.
    old = await suites.get_suite("support", "1")
    assert old.digest == v1.digest and not old.current
    assert suite_digest(loads_suite(old.suite_yaml)) == v1.digest
    assert loads_suite(old.suite_yaml).cases[0].input[0].content == "Please refund order A1001"
    current = await suites.get_suite("support")
    assert current.version == 2 and current.current
    assert loads_suite(current.suite_yaml).cases[0].input[0].content == "Please refund order A1001 now"

    # Pushing version 1's content again stores nothing and makes version 1 current again.
    back = await update(suites, SUITE)
    assert not back.new_version and (back.version.version, back.previous_version) == (1, 2)
    assert (await suites.get_suite("support")).version == 1
    versions = (
        await suites._stubs.suites.ListSuiteVersions(suites_pb2.ListSuiteVersionsRequest(name="support"))
    ).versions
    assert [(v.version, v.current) for v in versions] == [(2, False), (1, True)]

    # A version by a prefix of its digest, as v3 or 3, and a full digest.
    assert (await suites.get_suite("support", v2.version.digest[:7])).version == 2
    assert (await suites.get_suite("support", "v2")).version == 2
    assert (await suites.get_suite("support", v1.digest)).version == 1


async def test_the_exported_yaml_pushed_back_is_the_same_version(suites: Client) -> None:
    await update(suites, SUITE)
    exported = (await suites.get_suite("support")).suite_yaml
    assert "- tool_called: {tool: issue_refund}" in exported  # the short form people write
    resp = await update(suites, exported)
    assert not resp.new_version and resp.version.version == 1


async def test_list_get_delete_and_not_found(suites: Client) -> None:
    await update(suites, SUITE)
    await update(suites, edited(SUITE, lambda d: d.update(name="billing")), name="billing")
    await update(suites, edited(SUITE, lambda d: d.update(name="billing", trials=5)), name="billing")
    listed = (await suites._stubs.suites.ListSuites(suites_pb2.ListSuitesRequest())).suites
    assert [(s.name, s.current.version, s.version_count) for s in listed] == [
        ("billing", 2, 2),
        ("support", 1, 1),
    ]
    tagged = (await suites._stubs.suites.ListSuites(suites_pb2.ListSuitesRequest(tag="slow"))).suites
    assert len(tagged) == 2
    assert not (await suites._stubs.suites.ListSuites(suites_pb2.ListSuitesRequest(tag="nope"))).suites
    assert not (await suites._stubs.suites.ListSuites(suites_pb2.ListSuitesRequest(tag="%"))).suites

    deleted = await suites._stubs.suites.DeleteSuite(suites_pb2.DeleteSuiteRequest(name="billing"))
    assert deleted.versions_deleted == 2
    assert [
        s.name for s in (await suites._stubs.suites.ListSuites(suites_pb2.ListSuitesRequest())).suites
    ] == ["support"]
    for call in (
        suites._stubs.suites.GetSuite(suites_pb2.GetSuiteRequest(name="billing")),
        suites._stubs.suites.DeleteSuite(suites_pb2.DeleteSuiteRequest(name="billing")),
        suites._stubs.suites.ListSuiteVersions(suites_pb2.ListSuiteVersionsRequest(name="billing")),
        suites._stubs.suites.GetSuite(suites_pb2.GetSuiteRequest(name="support", version="7")),
        suites._stubs.suites.GetSuite(suites_pb2.GetSuiteRequest(name="support", version="abcdef0")),
        suites._stubs.suites.UpdateSuite(
            suites_pb2.UpdateSuiteRequest(name="billing", suite_yaml=SUITE.replace("support", "billing"))
        ),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await call
        assert info.value.code() == grpc.StatusCode.NOT_FOUND, info.value.details()
    # A deleted name can be used again, from version 1.
    again = await update(suites, edited(SUITE, lambda d: d.update(name="billing")), name="billing")
    assert again.new_version and again.version.version == 1


async def test_create_twice_and_a_stale_edit_are_refused(suites: Client) -> None:
    await suites._stubs.suites.CreateSuite(suites_pb2.CreateSuiteRequest(suite_yaml=SUITE))
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await suites._stubs.suites.CreateSuite(suites_pb2.CreateSuiteRequest(suite_yaml=SUITE))
    assert info.value.code() == grpc.StatusCode.ALREADY_EXISTS
    v2 = await update(suites, edited(SUITE, lambda d: d.update(trials=4)), expected_version=1)
    assert v2.version.version == 2
    # An edit made from version 1 after version 2 was stored does not undo it.
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await update(suites, edited(SUITE, lambda d: d.update(trials=7)), expected_version=1)
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "version 2" in (info.value.details() or "")
    assert (await suites.get_suite("support")).version == 2


async def test_concurrent_pushes_of_one_suite_each_get_their_own_version(suites: Client) -> None:
    await update(suites, SUITE)
    texts = [edited(SUITE, lambda d, i=i: d.update(trials=i + 4)) for i in range(6)]
    results = await asyncio.gather(*(update(suites, t) for t in texts))
    numbers = sorted(r.version.version for r in results)
    assert numbers == [2, 3, 4, 5, 6, 7]
    assert len({r.version.digest for r in results}) == 6


async def test_diff_names_added_removed_and_modified_cases(suites: Client) -> None:
    await update(suites, SUITE)

    def change(d):  # type: ignore[no-untyped-def]
        d["trials"] = 5
        d["cases"][0]["graders"].append({"output_contains": {"text": "refund"}})
        d["cases"][1]["tags"] = ["negative"]
        del d["cases"][2]
        d["cases"].append({"id": "new_one", "input": "Where is my parcel?"})

    await update(suites, edited(SUITE, change))
    resp = await suites._stubs.suites.DiffSuites(
        suites_pb2.DiffSuitesRequest(
            base=suites_pb2.SuiteRef(name="support", version="1"),
            target=suites_pb2.SuiteRef(name="support"),
        )
    )
    assert (resp.base.version, resp.target.version, resp.identical) == (1, 2, False)
    assert [(f.field, f.before_yaml.strip(), f.after_yaml.strip()) for f in resp.suite_fields] == [
        ("trials", "3", "5")
    ]
    changes = {c.case_id: c for c in resp.cases}
    assert changes["refund_small"].kind == suites_pb2.CASE_CHANGE_KIND_MODIFIED
    assert list(changes["refund_small"].fields) == ["graders"]
    assert "\n+- output_contains: {text: refund}\n" in changes["refund_small"].unified_diff
    assert list(changes["no_refund"].fields) == ["tags"]
    assert changes["new_one"].kind == suites_pb2.CASE_CHANGE_KIND_ADDED
    assert "Where is my parcel?" in changes["new_one"].after_yaml
    assert changes["greeting"].kind == suites_pb2.CASE_CHANGE_KIND_REMOVED
    assert resp.unchanged_cases == 0 and not resp.order_changed
    same = await suites._stubs.suites.DiffSuites(
        suites_pb2.DiffSuitesRequest(
            base=suites_pb2.SuiteRef(name="support", version="2"), target=suites_pb2.SuiteRef(name="support")
        )
    )
    assert same.identical and not same.cases and same.unchanged_cases == 3


async def test_bad_input_is_invalid_argument_naming_the_field_and_nothing_is_stored(suites: Client) -> None:
    s = suites._stubs.suites
    cases = [
        ("not: [valid", "suite_yaml: not valid YAML"),
        ("", "suite_yaml: empty"),
        ("- a\n- b\n", "a suite must be a mapping"),
        (SUITE.replace("Hello", "Hel\x00lo"), "suite_yaml: contains a NUL byte"),
        (
            SUITE.replace("name: support", "name: my suite"),
            "suite_yaml: name: 'my suite' cannot name a stored suite",
        ),
        (
            SUITE.replace("tool_not_called", "tool_not_caled"),
            "cases[1] (id 'no_refund'): graders[0]: unknown grader",
        ),
        (SUITE.replace("id: greeting", "id: refund_small"), "duplicate case id"),
        (SUITE + "    trials: 0\n", "cases[2] (id 'greeting').trials"),
        (
            "name: support\ncases:\n" + "".join(f"  - {{id: c{i}, input: x}}\n" for i in range(51)),
            "51 cases, more than the 50",
        ),
        (SUITE + "#" * 70_000, "bytes, more than the 65,536"),
        (
            SUITE.replace(
                "graders:\n  - max_steps: {max: 8}", "graders:\n  - eval_function: {path: evals/x.py}"
            ),
            "graders[0]: an eval_function given by path cannot be read by the suite store",
        ),
        (
            "a: &a [1,1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
            "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
            "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\n",
            "aliases are expanded",
        ),
        ("name: support\ncases: " + "[" * 200 + "]" * 200, "suite_yaml: nested"),
    ]
    for text, expected in cases:
        details = await invalid(s.CreateSuite(suites_pb2.CreateSuiteRequest(suite_yaml=text)))
        assert expected in details, (expected, details)
    assert not (await s.ListSuites(suites_pb2.ListSuitesRequest())).suites, "a refused suite was stored"

    await update(suites, SUITE)
    for request, expected in [
        (suites_pb2.UpdateSuiteRequest(name="other", suite_yaml=SUITE), "the request updates 'other'"),
        (suites_pb2.UpdateSuiteRequest(name="a/b", suite_yaml=SUITE), "name: 'a/b' cannot name"),
        (
            suites_pb2.UpdateSuiteRequest(name="support", suite_yaml=SUITE, expected_version=-1),
            "expected_version",
        ),
    ]:
        assert expected in await invalid(s.UpdateSuite(request))
    for request, expected in [
        (suites_pb2.GetSuiteRequest(name="support", version="latest"), "version: 'latest' is not a version"),
        (suites_pb2.GetSuiteRequest(name="sup\x00port"), "name:"),
        (suites_pb2.GetSuiteRequest(name=""), "name: '' cannot name"),
    ]:
        assert expected in await invalid(s.GetSuite(request))
    assert "base.name: missing" in await invalid(
        s.DiffSuites(suites_pb2.DiffSuitesRequest(target=suites_pb2.SuiteRef(name="support")))
    )
    assert "target.version" in await invalid(
        s.DiffSuites(
            suites_pb2.DiffSuitesRequest(
                base=suites_pb2.SuiteRef(name="support"),
                target=suites_pb2.SuiteRef(name="support", version="x!"),
            )
        )
    )
    assert "limit" in await invalid(s.ListSuites(suites_pb2.ListSuitesRequest(limit=-1)))
    versions = (await s.ListSuiteVersions(suites_pb2.ListSuiteVersionsRequest(name="support"))).versions
    assert [v.version for v in versions] == [1], "a refused update stored a version"


async def test_json_content_and_non_finite_numbers(suites: Client) -> None:
    as_json = loads_suite(SUITE).model_dump_json()
    created = await suites._stubs.suites.CreateSuite(suites_pb2.CreateSuiteRequest(suite_yaml=as_json))
    assert created.version.digest == suite_digest(loads_suite(SUITE))
    for text in (
        SUITE.replace("id: greeting", "id: greeting\n    metadata: {x: .nan}"),
        as_json.replace('"metadata":{}', '"metadata":{"x":Infinity}', 1),
    ):
        details = await invalid(
            suites._stubs.suites.UpdateSuite(suites_pb2.UpdateSuiteRequest(name="support", suite_yaml=text))
        )
        assert "numbers must be finite" in details, details
