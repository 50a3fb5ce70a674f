"""The ``agent-eval`` command line."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import grpc
import typer
from pydantic import ValidationError
from rich.console import Console

from agenteval.contracts.errors import AgentEvalError

if TYPE_CHECKING:
    from agenteval.sdk import Client

T = TypeVar("T")

app = typer.Typer(
    name="agent-eval",
    help="Evaluate LLM agents: run suites k times per case, grade every transcript, compare versions.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = Console()
err = Console(stderr=True)

DataDir = Annotated[
    Path,
    typer.Option("--data-dir", envvar="AGENTEVAL_DATA_DIR", help="Where the embedded stack keeps its data."),
]
Server = Annotated[
    str | None,
    typer.Option(
        "--server", envvar="AGENTEVAL_SERVER", help="gRPC address of a running agenteval (default: embedded)."
    ),
]
JsonOut = Annotated[bool, typer.Option("--json", help="Print one JSON document instead of tables.")]


def fail(message: str, code: int = 1) -> NoReturn:
    err.print(f"[red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


async def _until_signal(coro_fn: Callable[[], Awaitable[T]]) -> T:
    """The command, cancelled (so it can clean up) by SIGTERM as Ctrl-C cancels it."""
    task = asyncio.current_task()
    if task is not None:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    return await coro_fn()


def run_async(coro_fn: Callable[[], Awaitable[T]]) -> T:
    """Run a command's coroutine; contract and gRPC errors become messages, not tracebacks."""
    try:
        return asyncio.run(_until_signal(coro_fn))
    except asyncio.CancelledError:
        fail("terminated", 143)
    except AgentEvalError as exc:
        from agenteval.contracts.errors import InvalidArgument, NotFound

        fail(str(exc), 2 if isinstance(exc, (InvalidArgument, NotFound)) else 1)
    except grpc.aio.AioRpcError as exc:
        code = exc.code()
        if code == grpc.StatusCode.UNAVAILABLE:
            fail(f"cannot reach agenteval at the given server: {exc.details()}")
        fail(
            exc.details() or str(code),
            2 if code in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND) else 1,
        )
    except KeyboardInterrupt:
        fail("interrupted", 130)
    except ValidationError as exc:
        problem = settings_problem(exc)
        if problem is None:
            raise
        fail(problem, 2)
    raise AssertionError("unreachable")


def settings_problem(exc: ValidationError) -> str | None:
    """A bad AGENTEVAL_* setting, named by its environment variable; None when ``exc`` is not
    about settings."""
    from pydantic_settings import BaseSettings

    classes: list[type] = [BaseSettings]
    found = None
    while classes and found is None:
        cls = classes.pop()
        if cls.__name__ == exc.title and cls is not BaseSettings:
            found = cls
        classes.extend(cls.__subclasses__())
    if found is None:
        return None
    prefix = found.model_config.get("env_prefix", "")  # type: ignore[attr-defined]
    parts = []
    for e in exc.errors():
        var = f"{prefix}{'_'.join(str(p) for p in e['loc'])}".upper()
        parts.append(f"{var}={e.get('input')!r}: {e['msg'].lower()}")
    return "invalid setting " + "; ".join(parts)


@asynccontextmanager
async def connect(server: str | None, data_dir: Path) -> AsyncIterator[Client]:
    """A client of ``server``, or of an embedded stack started for this command."""
    from agenteval.sdk import Client

    if server:
        async with Client(server) as client:
            yield client
        return
    from agenteval.cli.stack import EmbeddedStack

    stack = EmbeddedStack(data_dir)
    await stack.start()
    try:
        async with Client(stack.target) as client:
            yield client
    finally:
        await stack.stop()


def main() -> None:
    from agenteval.cli import (  # noqa: F401 - registers the commands
        commands,
        compare,
        control,
        eval_jobs,
        evals,
        export,
        flaky,
        github,
        models,
        suites,
        tokens,
        traces,
        watch,
        webhooks,
    )

    app()


def print_json(doc: Any) -> None:
    sys.stdout.write(json.dumps(doc, indent=2, default=str) + "\n")


def env_flag(name: str) -> bool:
    return os.environ.get(name, "").lower() in ("1", "true", "yes")
