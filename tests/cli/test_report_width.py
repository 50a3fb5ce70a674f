"""compare, report and flakiness fit the terminal (and COLUMNS when piped): at 80 and 120
columns no line is wider, every case id is whole on one line, headers are not split letter by
letter, and what a narrow terminal leaves out is named."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.suite import Suite
from agenteval.sdk import Client
from tests.cli.test_cli_run_ids import agent_eval

pytestmark = pytest.mark.asyncio(loop_scope="module")
CASES = [
    "refund_small_order_placed_yesterday_by_a_returning_customer",
    "track",
    "cancel-subscription-mid-cycle",
]
SUITE = Suite.model_validate(
    {
        "name": "widths",
        "agent": "python:tests.agents:coin",
        "graders": [{"output_contains": {"text": "heads"}}],
        "cases": [{"id": c, "input": f"flip for {c}", "tags": ["fast"]} for c in CASES],
    }
)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def runs(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[str, list[str]]]:
    async with EmbeddedStack(tmp_path_factory.mktemp("widths")) as stack, Client(stack.target) as client:
        ids = []
        for seed in (1, 2, 3):
            run = await client.submit(SUITE, k=5, seed=seed, agent_version="v1")
            await client.wait(run.run_id, timeout_s=60)
            ids.append(run.run_id)
        yield stack.target, ids


def check(out: str, columns: int, must: list[str]) -> None:
    lines = out.splitlines()
    assert all(len(line) <= columns for line in lines), f"wider than {columns}:\n" + max(lines, key=len)
    for word in must:
        assert any(word in line for line in lines), f"{word!r} is cut or split:\n{out}"
    # A header folded to one letter per line shows up as runs of one-character lines.
    singles = sum(1 for line in lines if len(line.strip()) == 1)
    assert singles < 3, out


@pytest.mark.parametrize("columns", [80, 120])
async def test_report_table_fits(runs: tuple[str, list[str]], columns: int) -> None:
    target, ids = runs
    code, out, err = await agent_eval(
        "report", ids[0], "--format", "table", "--server", target, columns=columns
    )
    assert code == 0, err
    check(out, columns, [*CASES, ids[0], "pass@5", "pass^5"])
    assert "not shown at this width" in out  # what was left out is named (p99, tokens... at 80 and 120)


@pytest.mark.parametrize("columns", [80, 120])
async def test_compare_table_fits(runs: tuple[str, list[str]], columns: int) -> None:
    target, ids = runs
    code, out, err = await agent_eval("compare", ids[0], ids[1], "--server", target, columns=columns)
    assert code in (0, 1), err
    check(out, columns, [*CASES, "Verdict"])


@pytest.mark.parametrize("columns", [80, 120])
async def test_flakiness_table_fits_and_labels_every_column(
    runs: tuple[str, list[str]], columns: int
) -> None:
    target, _ = runs
    code, out, err = await agent_eval(
        "flakiness", "--suite", "widths", "--agent-version", "v1", "--server", target, columns=columns
    )
    assert code == 0, err
    check(out, columns, [*CASES, "flakiness"])
    # Every row says what it is: steady, non-deterministic or flaky across runs (no blank column).
    lines = out.splitlines()
    for case in CASES:
        [at] = [i for i, line in enumerate(lines) if case in line]
        entry = " ".join(lines[at : at + 3])  # a table row, or a list entry (id, then its figures)
        assert any(word in entry for word in ("steady", "non-deterministic", "flaky across runs")), entry
