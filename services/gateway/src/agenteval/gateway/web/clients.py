"""One SDK client per (token, project) a browser or script calls with, reused across requests."""

from __future__ import annotations

from collections import OrderedDict

from agenteval.sdk import Client

MAX_CLIENTS = 64


class Clients:
    def __init__(self, target: str, tls_ca: str | None = None) -> None:
        self.target = target
        self.tls_ca = tls_ca
        self._clients: OrderedDict[tuple[str, str], Client] = OrderedDict()

    async def get(self, token: str, project: str) -> Client:
        key = (token, project)
        client = self._clients.get(key)
        if client is None:
            client = Client(self.target, token=token or "", project=project or "", tls_ca=self.tls_ca or "")
            self._clients[key] = client
            while len(self._clients) > MAX_CLIENTS:
                _, old = self._clients.popitem(last=False)
                await old.close()
        self._clients.move_to_end(key)
        return client

    async def close(self) -> None:
        for client in self._clients.values():
            await client.close()
        self._clients.clear()
