"""``agent-eval suites ...``: suites stored on the server, versioned by their content.

YAML files stay the way to keep suites in git: ``push`` stores a file's content as a version
(the same content is the same version), ``export`` gives a version back as a file.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from agenteval.cli import DataDir, JsonOut, Server, app, connect, err, fail, out, print_json, run_async

suites_app = typer.Typer(
    help="Suites stored on the server: push a YAML file (or a JSONL/CSV file of cases), list, show, "
    "diff, export, delete. Run one with `agent-eval run NAME[@VERSION]`.",
    no_args_is_help=True,
)
app.add_typer(suites_app, name="suites")

SHORT = 12
"""Hex digits of a digest shown (any 7 or more are accepted back)."""


def short(digest: str) -> str:
    return digest[:SHORT]


def _ref(text: str, what: str = "suite") -> tuple[str, str]:
    from agenteval.suites import SuiteError, parse_ref

    try:
        ref = parse_ref(text, what)
    except SuiteError as exc:
        fail(str(exc), 2)
    return ref.name, ref.version


def version_doc(v: Any) -> dict[str, Any]:
    return {
        "name": v.name,
        "version": v.version,
        "digest": v.digest,
        "current": v.current,
        "created_at": v.created_at,
        "case_count": v.case_count,
        "tags": list(v.tags),
        "description": v.description,
    }


def _read_suite(file: Path, name: str | None, agent: str | None, trials: int | None, expect: str) -> Any:
    """The suite a file holds: a suite file (YAML/JSON), or a JSONL/CSV file of cases."""
    from agenteval.suites import SuiteError, cases_format, load_suite, suite_from_cases

    try:
        if cases_format(file) is not None:
            if not file.is_file():
                fail(f"{file}: no such file", 2)
            suite = suite_from_cases(file, name or file.stem, expect, agent, trials)  # type: ignore[arg-type]
        else:
            suite = load_suite(file)
            update: dict[str, Any] = {}
            if name:
                update["name"] = name
            if agent:
                update["agent"] = agent
            if trials:
                update["trials"] = trials
            if update:
                suite = type(suite).model_validate({**suite.model_dump(), **update})
    except SuiteError as exc:
        fail(str(exc), 2)
    except ValueError as exc:  # a bad override (pydantic)
        fail(f"{file}: {exc}", 2)
    return suite


@suites_app.command("push")
def push(
    file: Annotated[
        Path,
        typer.Argument(help="A suite file (YAML), or cases as JSONL (.jsonl) or CSV (.csv): see the README."),
    ],
    name: Annotated[
        str | None,
        typer.Option(
            "--name",
            "-n",
            help="Store under this name (default: the suite's own; for cases: the file's stem).",
        ),
    ] = None,
    agent: Annotated[str | None, typer.Option("--agent", "-a", help="Set the suite's default agent.")] = None,
    trials: Annotated[
        int | None, typer.Option("--trials", "-k", min=1, max=1000, help="Set the suite's trials per case.")
    ] = None,
    expect: Annotated[
        str,
        typer.Option(
            help="JSONL/CSV: how expected_output is graded: contains (output_contains, any letter case), "
            "equals (output_equals) or none."
        ),
    ] = "contains",
    expected_version: Annotated[
        int, typer.Option(help="Store only if this is still the current version (0: don't check).")
    ] = 0,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Store a suite's content as its newest version; the same content again stores nothing."""
    from agenteval.suites import SuiteError, check_stored_name

    if expect not in ("contains", "equals", "none"):
        fail(f"--expect: {expect!r} is not one of contains, equals, none", 2)
    suite = _read_suite(file, name, agent, trials, expect)
    try:
        check_stored_name(suite.name, "name")
    except SuiteError as exc:
        fail(f"{exc} (choose another with --name)", 2)

    async def go() -> Any:
        async with connect(server, data_dir) as client:
            return await client.push_suite(suite, expected_version=expected_version)

    resp = run_async(go)
    v = resp.version
    if json_out:
        print_json(
            {**version_doc(v), "new_version": resp.new_version, "previous_version": resp.previous_version}
        )
        return
    label = f"{escape(v.name)}@{v.version} ({short(v.digest)})"
    if resp.new_version:
        was = f"; was version {resp.previous_version}" if resp.previous_version else " (new suite)"
        out.print(f"stored {label}, {v.case_count} cases{was}", highlight=False)
    elif resp.previous_version == v.version:
        out.print(f"unchanged: {label} already has this content", highlight=False)
    else:
        out.print(
            f"{label} already had this content; it is current again (was version {resp.previous_version})",
            highlight=False,
        )


@suites_app.command("list")
def list_suites(
    tag: Annotated[str, typer.Option(help="Only suites with a case carrying this tag.")] = "",
    limit: Annotated[int, typer.Option(min=1, max=1000, help="At most this many.")] = 100,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """List stored suites with their current version."""

    async def go() -> Any:
        async with connect(server, data_dir) as client:
            return await client.list_suites(tag=tag, limit=limit)

    found = run_async(go)
    docs = [
        {
            **version_doc(s.current),
            "version_count": s.version_count,
            "updated_at": s.updated_at,
            "suite_created_at": s.created_at,
        }
        for s in found
    ]
    if json_out:
        print_json({"suites": docs})
        return
    if not docs:
        out.print(
            "no stored suites"
            + (f" with tag {tag!r}" if tag else "")
            + " (store one: agent-eval suites push FILE)"
        )
        return
    table = Table("suite", "version", "cases", "tags", "updated")
    table.columns[0].no_wrap = True
    for d in docs:
        table.add_row(
            escape(d["name"]),
            f"{d['version']} of {d['version_count']}",
            str(d["case_count"]),
            escape(", ".join(d["tags"])),
            d["updated_at"][:19].replace("T", " "),
        )
    out.print(table)


def _grader_text(spec: Any) -> str:
    import json

    return spec.name + (f" {json.dumps(spec.params, sort_keys=True)}" if spec.params else "")


@suites_app.command("show")
def show(
    ref: Annotated[str, typer.Argument(help="NAME or NAME@VERSION (a number or a digest prefix).")],
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Show a stored suite's version: its settings, its cases and the suite's versions."""
    from agenteval.suites import loads_suite, suite_data

    name, version = _ref(ref)

    async def go() -> Any:
        async with connect(server, data_dir) as client:
            found = await client.get_suite(name, version)
            return found, await client.suite_versions(name)

    found, versions = run_async(go)
    suite = loads_suite(found.suite_yaml, f"{found.name}@{found.version}")
    if json_out:
        print_json(
            {
                **version_doc(found),
                "versions": [version_doc(v) for v in versions],
                "suite": suite_data(suite),
            }
        )
        return
    state = "current" if found.current else "not current"
    out.print(
        f"[bold]{escape(found.name)}@{found.version}[/] · {state} · digest {short(found.digest)}",
        highlight=False,
    )
    settings = [f"{found.case_count} cases", f"trials {suite.trials}", f"timeout {suite.timeout_s:g} s"]
    if suite.agent:
        settings.append(f"agent {suite.agent}")
    out.print(escape(" · ".join(settings)), highlight=False)
    if suite.description.strip():
        out.print(escape(suite.description.strip()), highlight=False)
    if suite.graders:
        out.print("graders of every case: " + escape("; ".join(_grader_text(g) for g in suite.graders)))
    table = Table("case", "graders", "tags", "input")
    table.columns[0].no_wrap = True  # ids are what later commands take: never cut
    table.columns[1].justify = "right"
    table.columns[3].no_wrap = True
    table.columns[3].overflow = "ellipsis"
    # The input is a reminder, not the content (export has it): one line, cut to what is left.
    id_width = max((len(c.id) for c in suite.cases), default=4)
    tags_width = min(18, max((len(", ".join(c.tags)) for c in suite.cases), default=4))
    room = max(16, out.width - id_width - tags_width - 7 - 13)
    for case in suite.cases:
        text = " / ".join(m.content for m in case.input).replace("\n", " ")
        text = text if len(text) <= room else text[: room - 1] + "…"
        table.add_row(
            escape(case.id),
            str(len(suite.graders_for(case))),
            escape(", ".join(case.tags)),
            escape(text),
        )
    out.print(table)
    listed = ", ".join(f"{v.version}{' (current)' if v.current else ''}" for v in versions)
    out.print(f"versions: {listed}", highlight=False)


@suites_app.command("versions")
def versions(
    name: Annotated[str, typer.Argument(help="The suite's name.")],
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """List a stored suite's versions, newest first."""

    name, _ = _ref(name)

    async def go() -> Any:
        async with connect(server, data_dir) as client:
            return await client.suite_versions(name)

    found = run_async(go)
    if json_out:
        print_json({"versions": [version_doc(v) for v in found]})
        return
    table = Table("version", "digest", "cases", "stored")
    for column in table.columns:
        column.no_wrap = True
    for v in found:
        table.add_row(
            f"{v.version}{' (current)' if v.current else ''}",
            short(v.digest),
            str(v.case_count),
            v.created_at[:19].replace("T", " "),
        )
    out.print(table)


def _print_diff(resp: Any) -> None:
    from agenteval.v1 import suites_pb2

    a, b = resp.base, resp.target
    out.print(
        f"[bold]{escape(a.name)}@{a.version}[/] ({short(a.digest)}) → [bold]{escape(b.name)}@{b.version}[/] "
        f"({short(b.digest)})",
        highlight=False,
    )
    if resp.identical:
        out.print("identical: the same content")
        return
    for f in resp.suite_fields:
        before, after = f.before_yaml.strip(), f.after_yaml.strip()
        if "\n" not in before and "\n" not in after:
            out.print(
                f"[yellow]~[/] {escape(f.field)}: {escape(before or '(default)')} → {escape(after or '(default)')}",
                highlight=False,
            )
            continue
        out.print(f"[yellow]~[/] {escape(f.field)}:", highlight=False)
        for line in before.splitlines():
            out.print(f"    [red]- {escape(line)}[/]", highlight=False)
        for line in after.splitlines():
            out.print(f"    [green]+ {escape(line)}[/]", highlight=False)
    kinds = {
        suites_pb2.CASE_CHANGE_KIND_ADDED: ("added", "[green]+[/]"),
        suites_pb2.CASE_CHANGE_KIND_REMOVED: ("removed", "[red]-[/]"),
        suites_pb2.CASE_CHANGE_KIND_MODIFIED: ("modified", "[yellow]~[/]"),
    }
    counts = {name: 0 for name, _ in kinds.values()}
    for c in resp.cases:
        counts[kinds[c.kind][0]] += 1
    summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    out.print(
        f"cases: {summary or 'none changed'}, {resp.unchanged_cases} unchanged"
        + (" · the cases' order changed" if resp.order_changed else ""),
        highlight=False,
    )
    for c in resp.cases:
        kind, mark = kinds[c.kind]
        fields = f" ({', '.join(c.fields)})" if c.fields else ""
        out.print(f"{mark} {kind} {escape(c.case_id)}{escape(fields)}", highlight=False)
        for line in c.unified_diff.splitlines():
            if line.startswith(("---", "+++")):
                continue
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
            out.print(f"    [{style}]{escape(line)}[/]", highlight=False, soft_wrap=True)


@suites_app.command("diff")
def diff(
    base: Annotated[str, typer.Argument(help="NAME@VERSION to compare from (NAME: its current version).")],
    target: Annotated[str, typer.Argument(help="NAME@VERSION to compare to.")],
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """What changed between two suite versions: suite settings, then case by case."""
    from agenteval.v1 import suites_pb2

    a, b = _ref(base, "base"), _ref(target, "target")

    async def go() -> Any:
        async with connect(server, data_dir) as client:
            return await client._stubs.suites.DiffSuites(
                suites_pb2.DiffSuitesRequest(
                    base=suites_pb2.SuiteRef(name=a[0], version=a[1]),
                    target=suites_pb2.SuiteRef(name=b[0], version=b[1]),
                )
            )

    resp = run_async(go)
    if json_out:
        kinds = {1: "added", 2: "removed", 3: "modified"}
        print_json(
            {
                "base": version_doc(resp.base),
                "target": version_doc(resp.target),
                "identical": resp.identical,
                "suite_fields": [
                    {"field": f.field, "before": f.before_yaml, "after": f.after_yaml}
                    for f in resp.suite_fields
                ],
                "cases": [
                    {
                        "case_id": c.case_id,
                        "change": kinds.get(c.kind, "unknown"),
                        "fields": list(c.fields),
                        "before": c.before_yaml,
                        "after": c.after_yaml,
                        "unified_diff": c.unified_diff,
                    }
                    for c in resp.cases
                ],
                "unchanged_cases": resp.unchanged_cases,
                "order_changed": resp.order_changed,
            }
        )
        return
    _print_diff(resp)


@suites_app.command("export")
def export(
    ref: Annotated[str, typer.Argument(help="NAME or NAME@VERSION.")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to this file instead of standard output.")
    ] = None,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
) -> None:
    """Print a stored suite's version as a YAML suite file (push it back: the same version)."""
    name, version = _ref(ref)

    async def go() -> Any:
        async with connect(server, data_dir) as client:
            return await client.get_suite(name, version)

    found = run_async(go)
    if output is None:
        sys.stdout.write(found.suite_yaml)
        return
    try:
        output.write_text(found.suite_yaml, encoding="utf-8")
    except OSError as exc:
        fail(f"{output}: cannot write: {exc.strerror}")
    err.print(f"wrote {found.name}@{found.version} to {output}", highlight=False)


@suites_app.command("delete")
def delete(
    name: Annotated[str, typer.Argument(help="The suite's name.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
    json_out: JsonOut = False,
) -> None:
    """Delete a stored suite with every version (runs keep the version digest they recorded)."""
    from agenteval.v1 import suites_pb2

    name, version = _ref(name)
    if version:
        fail("a version cannot be deleted alone (versions are immutable): delete the suite by its name", 2)
    if not yes:
        if not sys.stdin.isatty():
            fail(f"deleting suite {name!r} and all its versions needs --yes", 2)
        typer.confirm(f"Delete suite {name!r} and all its versions?", abort=True)

    async def go() -> Any:
        async with connect(server, data_dir) as client:
            return await client._stubs.suites.DeleteSuite(suites_pb2.DeleteSuiteRequest(name=name))

    resp = run_async(go)
    if json_out:
        print_json({"name": name, "versions_deleted": resp.versions_deleted})
        return
    out.print(f"deleted suite {escape(name)} ({resp.versions_deleted} versions)", highlight=False)
