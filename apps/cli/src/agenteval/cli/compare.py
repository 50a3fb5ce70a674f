"""Commands of ``agent-eval`` for regression reports: compare, report, plan."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from agenteval.cli import DataDir, JsonOut, Server, app, connect, err, fail, out, print_json, run_async
from agenteval.contracts.summary import RunSummary
from agenteval.reports import (
    DEFAULT_ALPHA,
    DEFAULT_DROP,
    DEFAULT_POWER,
    ComparisonReport,
    ReportError,
    ReportFormat,
    RunReport,
    TrialPlan,
    comparison_report,
    print_comparison,
    print_plan,
    print_run,
    render_comparison,
    render_run,
    run_report,
    trial_plan,
)


class Estimate(StrEnum):
    bounded = "bounded"
    shrunk = "shrunk"
    observed = "observed"


class Format(StrEnum):
    table = "table"
    markdown = "markdown"
    json = "json"


FormatOpt = Annotated[
    Format, typer.Option("--format", "-f", help="table (terminal), markdown (PR comment) or json.")
]
OutputOpt = Annotated[
    Path | None, typer.Option("--output", "-o", help="Write the report to this file instead of stdout.")
]
Threshold = Annotated[
    float, typer.Option(help="Smallest fall in a pass rate that counts as a regression (0..1).")
]
Alpha = Annotated[float, typer.Option(help="Significance level (0..1).")]
Drop = Annotated[float, typer.Option(help="Fall in pass rate to detect (0.1 = 10 points).")]
Power = Annotated[float, typer.Option(help="Chance of detecting the drop when it happens (0..1).")]


def piped_width() -> int:
    """Width of a table written to a pipe or a file: COLUMNS when set, else 180 (every column)."""
    try:
        return max(40, int(os.environ.get("COLUMNS", "")))
    except ValueError:
        return 180


def _check_open_unit(name: str, value: float) -> None:
    if not 0.0 < value < 1.0:
        fail(f"{name} must be between 0 and 1 (exclusive), got {value}", 2)


def _emit(
    fmt: Format,
    output: Path | None,
    text: Callable[[ReportFormat], str],
    show: Callable[[], None],
    headline: str,
) -> None:
    """Print the report (rich tables on a terminal) or write it to `output`."""
    if output is not None:
        try:
            output.write_text(text(fmt.value), encoding="utf-8")
        except OSError as exc:
            fail(f"cannot write {output}: {exc.strerror or exc}")
        err.print(f"{headline} ({fmt.value} report written to {output})", highlight=False, markup=False)
    elif fmt is Format.table and out.is_terminal:
        show()
    else:
        # Markdown and JSON go out verbatim (rich would wrap lines and read [..] as markup);
        # tables piped to a file or a CI log get a fixed wide layout without colour codes.
        typer.echo(text(fmt.value), nl=False)


@app.command()
def compare(
    baseline: Annotated[
        str,
        typer.Argument(
            help="Baseline: a run id, an agent version label (its newest completed run), or a summary "
            "file (FILE.json, from agent-eval run --json), e.g. a previous CI run's artifact."
        ),
    ],
    candidate: Annotated[
        str, typer.Argument(help="Candidate: a run id, an agent version label, or a summary file.")
    ],
    threshold: Threshold = 0.05,
    alpha: Alpha = 0.05,
    fmt: FormatOpt = Format.table,
    json_out: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
    fail_on_regression: Annotated[
        bool,
        typer.Option(
            "--fail-on-regression",
            help="Exit 1 when a case or the suite regressed, or a case newly errors (for CI).",
        ),
    ] = False,
    fail_on_new_errors: Annotated[
        bool | None,
        typer.Option(
            "--fail-on-new-errors/--no-fail-on-new-errors",
            help="Exit 1 when a case's trials newly error or time out "
            "(default: on with --fail-on-regression); --no-... reports them without failing.",
            show_default=False,
        ),
    ] = None,
    allow_different_suites: Annotated[
        bool,
        typer.Option(
            "--allow-different-suites",
            help="Compare runs of differently named suites (refused otherwise: exit 2).",
        ),
    ] = False,
    output: OutputOpt = None,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
) -> None:
    """Compare a candidate run with a baseline: per-case regressions by a statistical test,
    the suite by a paired test, and cases that newly error or time out."""

    if not 0.0 <= threshold < 1.0:
        fail(f"--threshold must be in [0, 1), got {threshold}", 2)
    _check_open_unit("--alpha", alpha)
    if json_out:
        fmt = Format.json

    async def go() -> dict[str, Any]:
        async with connect(server, data_dir) as client:
            return await client.compare(baseline, candidate, threshold=threshold, alpha=alpha)

    if _summary_file(baseline) or _summary_file(candidate):
        document, _ = run_async(
            lambda: _compare_with_files(server, data_dir, baseline, candidate, threshold, alpha)
        )
    else:
        document = run_async(go)
    # New errors gate the verdict unless told not to; the exit code follows the flags.
    report = _comparison_from(document, fail_on_new_errors)
    if report.suites_differ and not allow_different_suites:
        fail(
            f"the runs are of different suites (baseline {report.baseline_suite!r}, candidate "
            f"{report.candidate_suite!r}); compare runs of one suite, or pass --allow-different-suites",
            2,
        )
    _emit(
        fmt,
        output,
        lambda f: render_comparison(report, f, piped_width()),
        lambda: print_comparison(out, report),
        report.headline,
    )
    errors_gate = fail_on_regression if fail_on_new_errors is None else fail_on_new_errors
    failed = {r.check for r in report.reasons if r.failed}
    if not report.reasons and not report.passed:  # a server from before reasons
        failed = {"cases"}
    exit_on = ({"cases", "suite"} if fail_on_regression else set()) | ({"errors"} if errors_gate else set())
    if failed & exit_on:
        if fmt is not Format.table or output is not None:
            flags = " ".join(
                flag
                for flag, on in (
                    ("--fail-on-regression", fail_on_regression and bool(failed & {"cases", "suite"})),
                    ("--fail-on-new-errors", errors_gate and "errors" in failed),
                )
                if on
            )
            err.print(f"{report.headline} ({flags})", highlight=False, markup=False)
        raise typer.Exit(1)


def _summary_file(ref: str) -> bool:
    return ref.endswith(".json") and Path(ref).is_file()


def _read_summary(path: str) -> RunSummary:
    from pydantic import ValidationError

    from agenteval.contracts.errors import InvalidArgument

    try:
        return RunSummary.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, ValueError, ValidationError) as exc:
        first = str(exc).splitlines()[0]
        raise InvalidArgument(
            f"{path}: not a run summary (the output of agent-eval run --json or show --json): {first}"
        ) from None


async def _resolve_summary(server: str | None, data_dir: Path, ref: str, suite: str) -> RunSummary:
    """A run's summary by id, or the newest completed run of agent version ``ref`` on ``suite``."""
    from agenteval.contracts.errors import Conflict, NotFound

    async with connect(server, data_dir) as client:
        try:
            run = await client.get_run(ref)
        except NotFound:
            found = await client.list_runs(suite=suite, agent_version=ref, limit=50)
            done = [r for r in found if r.summary is not None and r.status == "completed"]
            if not done:
                raise NotFound(
                    f"no run with id {ref!r} and no completed run of suite {suite!r} with agent version {ref!r}"
                ) from None
            run = done[0]
        if run.summary is None:
            raise Conflict(f"run {ref} has no summary yet (status {run.status})")
        return run.summary.model_copy(
            update={"run_id": run.run_id, "suite": run.suite, "agent_version": run.agent_version}
        )


async def _compare_with_files(
    server: str | None, data_dir: Path, baseline: str, candidate: str, threshold: float, alpha: float
) -> tuple[dict[str, Any], bool]:
    """Compare where one side (or both) is a summary file, e.g. a previous CI run's artifact."""
    from agenteval.contracts.errors import InvalidArgument
    from agenteval.runner.compare import compare_summaries

    if _summary_file(candidate):
        cand = _read_summary(candidate)
    if _summary_file(baseline):
        base = _read_summary(baseline)
        if not _summary_file(candidate):
            cand = await _resolve_summary(server, data_dir, candidate, base.suite)
    else:
        base = await _resolve_summary(server, data_dir, baseline, cand.suite)
    if base.run_id == cand.run_id:
        raise InvalidArgument(f"baseline and candidate are the same run {base.run_id}")
    result = compare_summaries(base, cand, threshold=threshold, alpha=alpha)
    return result.document, result.passed


def _comparison_from(document: dict[str, Any], fail_on_new_errors: bool | None = None) -> ComparisonReport:
    try:
        return comparison_report(document, fail_on_new_errors=fail_on_new_errors)
    except (ValueError, ReportError) as exc:
        fail(f"the server's comparison could not be read: {exc}")
    raise AssertionError("unreachable")


async def _summary(server: str | None, data_dir: Path, run_id: str) -> RunSummary:
    from agenteval.contracts.errors import Conflict

    async with connect(server, data_dir) as client:
        run = await client.get_run(run_id)
        if run.summary is None:
            raise Conflict(f"run {run_id} has no summary yet (status {run.status})")
        return run.summary


def _run_report_of(server: str | None, data_dir: Path, run_id: str, **plan: Any) -> RunReport:
    summary = run_async(lambda: _summary(server, data_dir, run_id))
    try:
        return run_report(summary, **plan)
    except ValueError as exc:
        fail(str(exc), 2)
    raise AssertionError("unreachable")


@app.command()
def report(
    run_id: Annotated[str, typer.Argument(help="Run id.")],
    fmt: FormatOpt = Format.table,
    json_out: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
    output: OutputOpt = None,
    drop: Drop = DEFAULT_DROP,
    power: Power = DEFAULT_POWER,
    alpha: Alpha = DEFAULT_ALPHA,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
) -> None:
    """A run's report: per-case pass rates with CIs, pass@k, pass^k, latency, cost, flaky cases,
    and how many trials per case would detect a drop (--drop, --power, --alpha)."""
    _check_open_unit("--power", power)
    _check_open_unit("--alpha", alpha)
    if json_out:
        fmt = Format.json
    rep = _run_report_of(server, data_dir, run_id, drop=drop, power=power, alpha=alpha)
    t = rep.totals
    _emit(
        fmt,
        output,
        lambda f: render_run(rep, f, piped_width()),
        lambda: print_run(out, rep),
        f"run {rep.run_id}: {t.passes}/{t.trials} trials passed",
    )


@app.command()
def plan(
    run: Annotated[
        str | None, typer.Option("--run", help="Plan from this run's per-case pass rates.")
    ] = None,
    baseline_rate: Annotated[
        float | None,
        typer.Option(help="Plan from one pass rate (default 0.8 when no --run is given)."),
    ] = None,
    cases: Annotated[
        int, typer.Option(min=1, help="With --baseline-rate: cases in the suite (alpha is split over them).")
    ] = 1,
    drop: Drop = DEFAULT_DROP,
    power: Power = DEFAULT_POWER,
    alpha: Alpha = DEFAULT_ALPHA,
    estimate: Annotated[
        Estimate,
        typer.Option(
            help="With --run: plan each case at its rate bounded (the most demanding rate in its "
            "95% interval), shrunk toward the suite's, or as observed."
        ),
    ] = Estimate.bounded,
    json_out: JsonOut = False,
    data_dir: DataDir = Path(".agenteval"),
    server: Server = None,
) -> None:
    """Trials per case that compare's two tests need to catch a drop: one case falling
    (per-case test) and every case falling (suite test)."""
    _check_open_unit("--power", power)
    _check_open_unit("--alpha", alpha)
    if not 0.0 < drop <= 1.0:
        fail(f"--drop must be in (0, 1], got {drop}", 2)
    if run is not None and baseline_rate is not None:
        fail("give --run or --baseline-rate, not both", 2)
    if run is not None:
        rep = _run_report_of(
            server, data_dir, run, drop=drop, power=power, alpha=alpha, estimate=estimate.value
        )
        if rep.trial_plan is None:
            fail(f"run {run} has no cases to plan from")
        assert rep.trial_plan is not None
        if json_out:
            print_json({"run_id": rep.run_id, **rep.trial_plan.model_dump(mode="json")})
        else:
            out.print(f"From the pass rates of run {rep.run_id}:", highlight=False, markup=False)
            print_plan(out, rep.trial_plan)
        return
    rate = 0.8 if baseline_rate is None else baseline_rate
    if not 0.0 <= rate <= 1.0:
        fail(f"--baseline-rate must be in [0, 1], got {rate}", 2)
    one = _rate_plan(rate, cases, drop, power, alpha)
    if json_out:
        print_json({"baseline_rate": rate, **one.model_dump(mode="json", exclude={"cases"})})
    else:
        out.print(f"From a pass rate of {rate * 100:.1f}%:", highlight=False, markup=False)
        print_plan(out, one, show_cases=False)


def _rate_plan(rate: float, cases: int, drop: float, power: float, alpha: float) -> TrialPlan:
    """The plan of a suite of `cases` cases that all pass at `rate`."""
    if drop > rate + 1e-12:
        fail(f"a pass rate of {rate} cannot drop by {drop}: no number of trials detects it", 2)
    planned = trial_plan({"case": rate}, drop, power, alpha, n_cases=cases)
    return planned.model_copy(update={"cases": []})
