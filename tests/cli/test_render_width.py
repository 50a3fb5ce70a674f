"""The run table fits the terminal: case ids whole on one line, nothing past the width, one
pass@1 column at k = 1, and no notes column when there are no notes."""

from __future__ import annotations

import pytest
from rich.console import Console

from agenteval.cli.render import print_summary
from agenteval.contracts.summary import CaseSummary, LatencySummary, RunSummary

CASES = [
    "refund_small_order_placed_yesterday_by_a_returning_customer",
    "track",
    "cancel-subscription-mid-cycle",
]


def summary(k: int, errors: bool) -> RunSummary:
    return RunSummary(
        run_id="run-1a20e5c5e25-1b2fc7da",
        suite="support",
        agent_version="python:examples.support_agent:run",
        k=k,
        trials=k * len(CASES),
        passes=k,
        pass_at_k={1: 0.5, k: 0.8},
        pass_pow_k={1: 0.5, k: 0.2},
        latency=LatencySummary(p50_ms=12.5, p95_ms=40.0, p99_ms=41.0),
        cases=[
            CaseSummary(
                case_id=c,
                trials=k,
                passes=i % 2 * k,
                pass_rate=float(i % 2),
                pass_at_k={1: 0.5, k: 0.9},
                pass_pow_k={1: 0.5, k: 0.1},
                errors=1 if errors and i == 0 else 0,
                flaky=errors and i == 2,
            )
            for i, c in enumerate(CASES)
        ],
    )


def render(s: RunSummary, width: int) -> list[str]:
    console = Console(width=width, record=True, color_system=None)
    print_summary(console, s)
    return console.export_text().splitlines()


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("k", [1, 5])
def test_case_ids_are_whole_and_nothing_passes_the_width(width: int, k: int) -> None:
    lines = render(summary(k, errors=True), width)
    assert all(len(line) <= width for line in lines), max(lines, key=len)
    for case in CASES:
        assert any(case in line for line in lines), f"{case} was cut or split:\n" + "\n".join(lines)
    assert any("run-1a20e5c5e25-1b2fc7da" in line for line in lines)
    text = "\n".join(lines)
    assert ("pass^5" in text and "pass@5" in text) == (k == 5)
    assert (k == 1) == ("pass@1 = pass^1" in text)  # one column, and why
    assert text.count("pass^1") == (1 if k == 1 else 0)
    assert "1 error" in text and "flaky" in text
    header = next((line for line in lines if line.lstrip().startswith("case")), None)
    if header is not None:  # a table (wide enough); else each case above its figures
        assert header.count("pass@1") == 1 and "notes" in header


def test_without_notes_there_is_no_notes_column_and_k_1_says_why_one_column() -> None:
    lines = render(summary(1, errors=False), 80)
    header = next(line for line in lines if line.lstrip().startswith("case"))
    assert "notes" not in header and "pass^1" not in header
    assert any("pass@1 = pass^1" in line for line in lines)
