"""A trial's transcript as text: what the agent was asked, each step it took (messages, LLM
calls, tool calls with arguments, results and errors), its answer and every grader's verdict."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape

from agenteval.contracts.records import TrialRecord

MAX_VALUE_CHARS = 2000
"""A tool argument or result longer than this is cut (the JSON output has it whole)."""


def _value(value: Any) -> str:
    text = (
        value
        if isinstance(value, str)
        else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    )
    if len(text) > MAX_VALUE_CHARS:
        return f"{text[:MAX_VALUE_CHARS]}... ({len(text) - MAX_VALUE_CHARS} more characters)"
    return text


def _verdict(passed: bool | None) -> str:
    if passed is None:
        return "[dim]not graded[/]"
    return "[green]pass[/]" if passed else "[red]fail[/]"


def print_transcript(console: Console, trial: TrialRecord) -> None:
    """Print one trial, wrapped at the console's width (words are not split)."""
    say = lambda text: console.print(text, highlight=False)  # noqa: E731 - local shorthand
    trace = trial.trace
    status = trial.status or (trace.status if trace else "unknown")
    say(
        f"[bold]{escape(trial.trial_id)}[/]  {escape(status)}  {_verdict(trial.passed)}"
        + (f"  score {trial.score:.2f}" if trial.score is not None else "")
        + f"  {trial.latency_ms:.0f} ms"
    )
    if trace is None:
        say("  [dim](no transcript stored)[/]")
    else:
        for m in trace.input:
            say(f"  [cyan]{m.role}[/]: {escape(m.content)}")
        for n, step in enumerate(trace.steps, 1):
            if step.type == "tool_call":
                say(f"  {n}. [yellow]tool[/] {escape(step.name or '?')}({escape(_value(step.arguments))})")
                if step.error:
                    say(f"     [red]error[/]: {escape(step.error)}")
                else:
                    say(f"     -> {escape(_value(step.result))}")
            elif step.type == "llm_call":
                tokens = f"{step.input_tokens} in / {step.output_tokens} out"
                say(
                    f"  {n}. [magenta]llm[/] {escape(step.model or '?')} ({tokens}, {step.latency_ms:.0f} ms)"
                )
                if step.content:
                    say(f"     {escape(step.content)}")
            else:
                role = step.role or step.type
                say(f"  {n}. [cyan]{escape(role)}[/]: {escape(step.content or '')}")
        if trace.output is not None:
            say(f"  [bold]answer[/]: {escape(trace.output)}")
        if trace.error is not None:
            say(f"  [red]{escape(trace.error.code)}[/]: {escape(trace.error.message)}")
    for g in trial.grades:
        line = f"  {_verdict(g.passed)} {escape(g.name)} {g.score:.2f}: {escape(g.explanation)}"
        if g.error:
            line += f" [red](error: {escape(g.error)})[/]"
        say(line)
    say("")
