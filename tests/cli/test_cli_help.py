"""Every command, option and argument of agent-eval says what it is for (--help is the manual)."""

from __future__ import annotations

from typing import Any

import typer.main

from agenteval.cli import app


def walk(command: Any, path: str = "agent-eval"):
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():  # a group (typer's own click)
        yield from walk(sub, f"{path} {name}")


def test_every_command_option_and_argument_has_help_text() -> None:
    import agenteval.cli.commands  # noqa: F401
    from agenteval.cli import (  # noqa: F401
        compare,
        control,
        eval_jobs,
        evals,
        export,
        flaky,
        github,
        main,
        models,
        suites,
        traces,
        watch,
        webhooks,
    )

    root = typer.main.get_command(app)
    commands = list(walk(root))
    assert len(commands) > 30 and sum(len(c.params) for _, c in commands) > 100, "the walk found the commands"
    missing = []
    for path, command in commands:
        if not (command.help or command.short_help):
            missing.append(f"{path}: no description")
        for param in command.params:
            if param.name in ("help",) or getattr(param, "hidden", False):
                continue
            if not getattr(param, "help", None):
                missing.append(f"{path} {param.opts[0] if param.opts else param.name}")
    assert missing == [], "\n".join(missing)
