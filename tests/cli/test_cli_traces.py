"""`agent-eval traces` as a script meets it: exit codes say whether anything was read or labeled."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agenteval.cli.stack import EmbeddedStack

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests/importers/data"


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[str]:
    async with EmbeddedStack(tmp_path / "data") as stack:
        yield stack.target


async def traces(server: str, *args: str) -> tuple[int, str, str]:
    """Run ``agent-eval traces ARGS --server SERVER``; (exit code, stdout, stderr)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agenteval.cli",
        "traces",
        *args,
        "--server",
        server,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def import_(server: str, path: Path, *args: str) -> tuple[int, str, str]:
    return await traces(server, "import", str(path), *args)


async def test_an_import_that_reads_no_trace_at_all_fails(server: str, tmp_path: Path) -> None:
    # A wrong --format: every line is a problem, and the message points at the option.
    rc, out, err = await import_(server, DATA / "otlp_traces.jsonl", "--dataset", "d", "--format", "mlflow")
    assert rc == 1, (out, err)
    assert "line 3: expected an MLflow trace" in out, out
    assert "nothing imported" in err and "is --format mlflow right?" in err, err
    assert "Traceback" not in err, err

    # Every line broken, with --json: the document is still printed, the exit code still says it.
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{broken\nnot json either\n")
    rc, out, err = await import_(server, broken, "--dataset", "d", "--json")
    assert rc == 1, (out, err)
    doc = json.loads(out)
    assert doc["imported"] == 0 and doc["problems"], doc
    assert f"nothing imported: not one trace in {broken} could be read" in err, err

    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    rc, out, err = await import_(server, empty, "--dataset", "d")
    assert rc == 1 and "the file is empty" in out, (out, err)


async def test_an_import_that_read_traces_succeeds_even_with_problems(server: str, tmp_path: Path) -> None:
    some = tmp_path / "some.jsonl"
    some.write_text((DATA / "jsonl_traces.jsonl").read_text() + "{broken line\n")
    rc, out, err = await import_(server, some, "--dataset", "d")
    assert rc == 0, err
    assert "imported 4 traces" in out and "line 5:" in out, out

    # All duplicates (and the same broken line): nothing new, but the file was read.
    rc, out, err = await import_(server, some, "--dataset", "d", "--json")
    assert rc == 0, err
    doc = json.loads(out)
    assert (doc["imported"], doc["duplicates"], len(doc["problems"])) == (0, 4, 1), doc


async def test_label_takes_the_synonyms_imports_take_and_names_them_when_wrong(server: str) -> None:
    rc, out, err = await import_(server, DATA / "jsonl_traces.jsonl", "--dataset", "d")
    assert rc == 0, err
    rc, out, err = await traces(server, "label", "run-1/case-a/0", "thumbs_down", "--dataset", "d", "--json")
    assert rc == 0, err
    assert json.loads(out)["label"] == "negative", out

    rc, out, err = await traces(server, "label", "run-1/case-a/0", "meh", "--dataset", "d")
    assert rc == 2, (out, err)
    assert "label 'meh' is not understood" in err and "good/bad" in err, err
    assert "Traceback" not in err, err
    rc, out, err = await traces(server, "list", "--dataset", "d", "--json")
    labels = {t["trace_id"]: t["label"] for t in json.loads(out)["traces"]}
    assert labels["run-1/case-a/0"] == "negative", f"a rejected label changed the trace: {labels}"


async def test_generic_traces_import_and_list_by_agent_and_rating(server: str) -> None:
    example = ROOT / "examples/traces/generic_traces.jsonl"
    rc, out, err = await import_(server, example, "--dataset", "gen")
    assert rc == 0, err
    assert "imported 8 traces" in out and "format generic" in out, out

    rc, out, err = await traces(server, "list", "--dataset", "gen", "--agent", "travel-bot-v2", "--json")
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["total"] == 4, doc
    assert sorted(t["trace_id"] for t in doc["traces"]) == [
        "travel-001",
        "travel-002",
        "travel-003",
        "travel-004",
    ]
    by_id = {t["trace_id"]: t for t in doc["traces"]}
    assert by_id["travel-003"]["steps"] == 4, "two weather calls, each one step"

    args = ("list", "--dataset", "gen", "--agent", "support-bot", "--rating", "thumbs_down", "--json")
    rc, out, err = await traces(server, *args)
    assert rc == 0, err
    assert sorted(t["trace_id"] for t in json.loads(out)["traces"]) == ["support-001", "support-003"], out

    rc, out, err = await traces(
        server, "list", "--dataset", "gen", "--agent", "travel-bot-v2", "--rating", "good"
    )
    assert rc == 0, err
    assert "travel-001" in out and "travel-003" in out and "travel-002" not in out, out
    assert "2 of 2" in out, out
