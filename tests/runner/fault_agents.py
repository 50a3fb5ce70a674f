"""Agents that misbehave, for the agent isolation tests (``python:tests.runner.fault_agents:NAME``).

Each agent misbehaves only in the case whose metadata says ``fault``; every other case is an
innocent neighbour that waits a little (so it is in flight, often in the same worker, when
the fault strikes) and answers "fine".
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from typing import Any

NEIGHBOUR_S = 0.3


def _fault(ctx: Any) -> str | None:
    return ctx.metadata.get("fault")


async def misbehaves(messages: list[dict[str, Any]], ctx: Any) -> Any:
    """An async agent whose faulty case does what its ``fault`` says."""
    fault = _fault(ctx)
    if fault == "block":  # a blocking call in an async agent: its worker's event loop stops
        time.sleep(600)
    elif fault == "spin":  # a busy loop in an async agent
        while True:
            pass
    elif fault == "exit":
        os._exit(3)
    elif fault == "segfault":  # dies without a word: no trial is named before it goes
        import ctypes

        ctypes.string_at(0)
    elif fault == "print":
        print("x" * 10_000_000)
        print("and a word on stderr", file=sys.stderr)
        os.write(1, b"written to fd 1 by C code\n")
        os.write(2, b"written to fd 2 by C code\n")
        return "fine, after printing 10 MB"
    elif fault == "unserializable":
        return {"output": "fine", "state": {"connection": threading.Lock()}}
    elif fault == "memory":
        hoard = []
        while True:
            hoard.append(b"x" * (32 << 20))
    elif fault == "sys_exit":
        sys.exit(4)
    await asyncio.sleep(NEIGHBOUR_S)
    return "fine"


def misbehaves_sync(messages: list[dict[str, Any]], ctx: Any) -> str:
    """A sync agent whose faulty case hangs (or spins) for ever on its thread."""
    fault = _fault(ctx)
    if fault == "hang":
        threading.Event().wait()
    elif fault == "spin":
        while True:
            pass
    time.sleep(NEIGHBOUR_S)
    return "fine"


async def stubborn(messages: list[dict[str, Any]], ctx: Any) -> str:
    """Ignores being cancelled (and every later cancellation): keeps its trial for ever."""
    ctx.say("started")
    while True:
        try:
            await asyncio.sleep(600)
        except asyncio.CancelledError:
            ctx.say("cancelled, carrying on")
