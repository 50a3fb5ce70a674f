"""Tool mocks that are Python functions, used by the tests ({"python": "tests.tool_functions:NAME"})."""

from __future__ import annotations

import os
import time
from typing import Any


def weather(city: str, days: int = 1) -> dict[str, Any]:
    """A forecast by city, and the process that computed it (where mock functions run)."""
    return {"city": city, "forecast": "rain" if city == "Paris" else "sun", "days": days, "pid": os.getpid()}


def down(**arguments: Any) -> Any:
    raise ConnectionError(f"the weather service is down (asked {sorted(arguments)})")


def blocks(**arguments: Any) -> Any:
    """Never answers (a mock that hangs on a socket, say): its trial must time out."""
    time.sleep(3600)


NOT_CALLABLE = 42


async def weather_async(city: str) -> dict[str, Any]:
    """The same forecast from an async function (for agents that await ctx.acall_tool)."""
    return {"city": city, "forecast": "rain" if city == "Paris" else "sun"}
