"""The benchmark harness measures a tiny W1 run and renders it into BENCHMARKS.md's section."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from bench.procs import machine
from bench.report import END, START, Target, render, write_section
from bench.workloads import Config, run_config


async def test_w1_on_a_tiny_embedded_stack_reports_positive_figures() -> None:
    result = await run_config(Config("W1", "embedded", cases=20, trials=2, reps=1))

    assert result["label"] == "W1 embedded"
    assert result["trials"] == 40, "the timed run should have run every case k times"
    for key in ("wall_s", "completed_s", "trials_per_s", "wall_ms_per_trial", "peak_rss_total_mb"):
        assert result[key] > 0, f"{key} should be a positive number, got {result[key]!r}"
    assert result["cpu_s"] >= 0 and result["store_lag_s"] >= 0
    assert result["completed_s"] <= result["wall_s"], "wall time includes waiting for storage"
    assert len(result["runs"]) == 1
    assert set(result["peak_rss_mb"]) >= {"embedded", "nats-server"}, result["peak_rss_mb"]
    assert all(mb > 0 for mb in result["peak_rss_mb"].values())

    doc = {
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python bench/run.py --only W1",
        "machine": machine(),
        "reps": 1,
        "results": [{**result, "command": "python -m bench.workloads ..."}],
        "failures": [],
    }
    section = render(doc)
    assert "| W1 embedded trials/s | W1 embedded | 1,000 | 2,000 |" in section
    assert "not measured" in section, "targets without a result (W2, W3) should say so"


def test_write_section_replaces_only_the_generated_part(tmp_path: Path) -> None:
    doc = tmp_path / "BENCHMARKS.md"
    doc.write_text(
        f"# Benchmarks\n\nintro\n\n{START}\nold figures\n{END}\n\n## Where time goes\n\nhand notes\n"
    )

    write_section(doc, "new figures\n")

    text = doc.read_text()
    assert "old figures" not in text
    assert f"{START}\nnew figures\n{END}" in text
    assert text.startswith("# Benchmarks\n\nintro") and text.endswith("## Where time goes\n\nhand notes\n")


def test_target_verdicts_say_by_how_much_a_result_misses() -> None:
    rate = Target("W1", must=1000, aim=2000, unit="trials/s")
    rss = Target("RSS", must=400, aim=250, unit="MB", higher_is_better=False)

    assert "meets the aim" in rate.verdict(2100)
    assert "misses the aim by 500 trials/s (25%)" in rate.verdict(1500)
    assert "misses** the must by 500 trials/s (50%)" in rate.verdict(500)
    assert "meets the aim" in rss.verdict(200)
    assert "misses the aim by 50 MB (20%)" in rss.verdict(300)
    assert rate.verdict(None) == "not measured"
