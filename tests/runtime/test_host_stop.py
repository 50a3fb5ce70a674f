"""A service process whose work is done always stops, even when a part of it hangs on the way out."""

from __future__ import annotations

import asyncio
import time

from agenteval.runtime import host as host_module
from agenteval.runtime.host import ServiceHost
from agenteval.runtime.settings import CommonSettings


class Component:
    name = "stuck"

    def __init__(self) -> None:
        self.closed_others = False

    async def prepare(self) -> None:
        pass

    def register_handlers(self, broker) -> None:
        pass

    def register_grpc(self, server) -> None:
        pass

    async def started(self, host) -> None:
        pass

    async def close(self) -> None:
        await asyncio.Event().wait()  # never returns


class Fine(Component):
    name = "fine"

    async def close(self) -> None:
        self.closed_others = True


async def test_a_component_that_hangs_on_close_does_not_keep_the_host_from_stopping(
    nats_url: str, bus_prefix: str, monkeypatch
) -> None:
    monkeypatch.setattr(host_module, "STOP_STEP_TIMEOUT_S", 0.5)
    fine = Fine()
    host = ServiceHost(
        [fine, Component()], CommonSettings(nats_url=nats_url, bus_prefix=bus_prefix), "127.0.0.1:0"
    )
    await host.start()
    started = time.perf_counter()
    await asyncio.wait_for(host.stop(), 10)
    assert time.perf_counter() - started < 5
    assert fine.closed_others, "the components after the stuck one are still closed"
