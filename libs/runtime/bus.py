"""The bus: one JetStream stream, durable pull consumers, deduplicated publishes.

Handlers take batches (``list[dict]``) and validate each payload themselves, so one bad
message is rejected alone instead of poisoning its batch; publishes go out concurrently
and carry the event id as ``Nats-Msg-Id`` so a redelivered handler that publishes again
is deduplicated by JetStream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from faststream.nats import ConsumerConfig, JStream, NatsBroker
from pydantic import BaseModel, ValidationError

from agenteval.contracts.events import Event
from agenteval.contracts.subjects import Subjects
from agenteval.runtime import telemetry

log = logging.getLogger("agenteval.bus")

M = TypeVar("M", bound=BaseModel)
Handler = Callable[[Any], Awaitable[None]]

# A message not acked in this time is redelivered (the handler died or hung). Batch
# handlers are quick; the trial consumer must outlast the longest trial.
ACK_WAIT_S = 30.0
TRIAL_ACK_WAIT_S = 3700.0
# After this many deliveries a message is dropped (logged); handlers are idempotent.
MAX_DELIVER = 10
# Duplicate window for Nats-Msg-Id dedupe.
DUPLICATE_WINDOW_S = 600.0


def make_broker(url: str) -> NatsBroker:
    """A broker without FastStream's per-message log line (it halves throughput)."""
    return NatsBroker(url, logger=None, connect_timeout=5, max_reconnect_attempts=-1)


def stream_for(subjects: Subjects) -> JStream:
    """The one stream over ``<prefix>.>``."""
    return JStream(
        name=subjects.stream,
        subjects=[subjects.all],
        declare=True,
        duplicate_window=DUPLICATE_WINDOW_S,
    )


def consumer_config(max_ack_pending: int = 20_000, ack_wait_s: float = ACK_WAIT_S) -> ConsumerConfig:
    return ConsumerConfig(ack_wait=ack_wait_s, max_deliver=MAX_DELIVER, max_ack_pending=max_ack_pending)


@dataclass
class _BatchSpec:
    subject: str
    subjects: Subjects
    durable: str
    batch_size: int
    handler: Handler
    max_workers: int = 0
    """0: hand batches to the handler; N: one handler call per message, N at once."""


_batch_specs: dict[int, list[_BatchSpec]] = {}


def batch_subscriber(
    broker: NatsBroker,
    subject: str,
    subjects: Subjects,
    durable: str,
    batch_size: int = 256,
) -> Callable[[Handler], Handler]:
    """Decorator: a durable pull consumer handing batches of raw payloads to the handler.

    Runs on nats-py directly (see :class:`BatchConsumer`), started with the broker by the
    service host. FastStream's batch subscriber refetches until its window closes, and
    under load some fetched messages were neither handled nor acked until ack_wait.
    """

    def register(fn: Handler) -> Handler:
        _batch_specs.setdefault(id(broker), []).append(_BatchSpec(subject, subjects, durable, batch_size, fn))
        return fn

    return register


class BatchConsumer:
    """One durable pull consumer: fetch up to ``batch_size``, hand the payloads over, ack them
    all on success, nak them all (redelivery after a delay) when the handler raises."""

    def __init__(self, js: Any, spec: _BatchSpec) -> None:
        self.js = js
        self.spec = spec
        self.task: asyncio.Task[None] | None = None
        self.sub: Any = None

    async def start(self) -> None:
        from nats.js.api import AckPolicy as JsAckPolicy

        cfg = consumer_config()
        cfg.ack_policy = JsAckPolicy.EXPLICIT
        cfg.durable_name = self.spec.durable
        self.sub = await self.js.pull_subscribe(
            self.spec.subject, durable=self.spec.durable, stream=self.spec.subjects.stream, config=cfg
        )
        self.task = asyncio.create_task(self._loop(), name=f"consumer {self.spec.durable}")

    async def _loop(self) -> None:
        import nats.errors

        while True:
            try:
                msgs = await self.sub.fetch(self.spec.batch_size, timeout=1.0)
            except TimeoutError:
                continue
            except (nats.errors.ConnectionClosedError, nats.errors.ConnectionReconnectingError):
                await asyncio.sleep(0.5)
                continue
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("fetch failed", extra={"handler": self.spec.durable})
                await asyncio.sleep(0.5)
                continue
            # Raw bytes: handlers validate straight from JSON (one pass, in pydantic-core).
            payloads: list[Any] = [m.data for m in msgs]
            good = msgs
            try:
                await self.spec.handler(payloads)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception(
                    "handler failed; its messages will be redelivered", extra={"handler": self.spec.durable}
                )
                await asyncio.gather(*(m.nak(delay=1.0) for m in good), return_exceptions=True)
                continue
            await asyncio.gather(*(m.ack() for m in good), return_exceptions=True)

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        if self.sub is not None:
            with contextlib.suppress(Exception):
                await self.sub.unsubscribe()


async def ensure_stream(js: Any, subjects: Subjects) -> None:
    """Declare the stream (idempotent; a stream that exists is left as it is)."""
    from nats.js.api import StreamConfig
    from nats.js.errors import BadRequestError

    try:
        await js.add_stream(
            StreamConfig(name=subjects.stream, subjects=[subjects.all], duplicate_window=DUPLICATE_WINDOW_S)
        )
    except BadRequestError:
        pass  # exists with another configuration: keep it


class BatchConsumers:
    """The batch consumers registered on a broker, run over their own NATS connection."""

    def __init__(self, broker: NatsBroker, url: str) -> None:
        self.broker_id = id(broker)
        self.specs = _batch_specs.pop(id(broker), [])
        self.url = url
        self.nc: Any = None
        self.consumers: list[BatchConsumer] = []

    async def start(self) -> None:
        import nats

        self.nc = await nats.connect(self.url, max_reconnect_attempts=-1)
        js = self.nc.jetstream()
        _publishers[self.broker_id] = js  # publishes of this host go out on this connection
        for prefix in {spec.subjects.prefix: spec.subjects for spec in self.specs}.values():
            await ensure_stream(js, prefix)
        for spec in self.specs:
            consumer = ConcurrentConsumer(js, spec) if spec.max_workers else BatchConsumer(js, spec)
            await consumer.start()
            self.consumers.append(consumer)

    async def stop(self) -> None:
        await asyncio.gather(*(c.stop() for c in self.consumers))
        self.consumers.clear()
        _publishers.pop(self.broker_id, None)
        if self.nc is not None and not self.nc.is_closed:
            await self.nc.drain()


def concurrent_subscriber(
    broker: NatsBroker,
    subject: str,
    subjects: Subjects,
    durable: str,
    max_workers: int,
) -> Callable[[Handler], Handler]:
    """Decorator: a durable pull consumer running one handler call per message (raw JSON
    bytes), up to ``max_workers`` at once, each message acked as soon as its call ends."""

    def register(fn: Handler) -> Handler:
        _batch_specs.setdefault(id(broker), []).append(
            _BatchSpec(subject, subjects, durable, min(max_workers, 256), fn, max_workers=max_workers)
        )
        return fn

    return register


class ConcurrentConsumer(BatchConsumer):
    """Keeps up to ``max_workers`` messages in flight: fetches as many as there are free slots,
    runs each in its own task, acks it when done (naks it for redelivery when the call raises),
    so a slow message never holds a batch back."""

    async def start(self) -> None:
        from nats.js.api import AckPolicy as JsAckPolicy

        self.slots = asyncio.Semaphore(self.spec.max_workers)
        self.inflight: set[asyncio.Task[None]] = set()
        cfg = consumer_config(
            max_ack_pending=max(1000, self.spec.max_workers * 4), ack_wait_s=TRIAL_ACK_WAIT_S
        )
        cfg.ack_policy = JsAckPolicy.EXPLICIT
        cfg.durable_name = self.spec.durable
        self.sub = await self.js.pull_subscribe(
            self.spec.subject, durable=self.spec.durable, stream=self.spec.subjects.stream, config=cfg
        )
        self.task = asyncio.create_task(self._loop(), name=f"consumer {self.spec.durable}")

    async def _loop(self) -> None:
        import nats.errors

        while True:
            await self.slots.acquire()
            want = 1
            while want < self.spec.batch_size and not self.slots.locked():
                await self.slots.acquire()
                want += 1
            try:
                msgs = await self.sub.fetch(want, timeout=1.0)
            except TimeoutError:
                msgs = []
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not isinstance(
                    exc, (nats.errors.ConnectionClosedError, nats.errors.ConnectionReconnectingError)
                ):
                    log.exception("fetch failed", extra={"handler": self.spec.durable})
                msgs = []
                await asyncio.sleep(0.5)
            for _ in range(want - len(msgs)):
                self.slots.release()
            for m in msgs:
                task = asyncio.create_task(self._one(m))
                self.inflight.add(task)
                task.add_done_callback(self.inflight.discard)

    async def _one(self, m: Any) -> None:
        try:
            await self.spec.handler(m.data)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception(
                "handler failed; the message will be redelivered", extra={"handler": self.spec.durable}
            )
            with contextlib.suppress(Exception):
                await m.nak(delay=1.0)
        else:
            with contextlib.suppress(Exception):
                await m.ack()
        finally:
            self.slots.release()

    async def stop(self) -> None:
        await super().stop()
        for task in list(self.inflight):
            task.cancel()
        if self.inflight:
            await asyncio.gather(*self.inflight, return_exceptions=True)


def parse_batch(model: type[M], payloads: Iterable[object], handler: str) -> list[M]:
    """Validate each payload; a payload that does not fit is logged and dropped (rejected)."""
    out: list[M] = []
    for payload in payloads:
        try:
            if isinstance(payload, (bytes, bytearray, str)):
                out.append(model.model_validate_json(payload))
            else:
                out.append(model.model_validate(payload))
        except ValidationError as exc:
            log.error(
                "rejected invalid payload",
                extra={"handler": handler, "model": model.__name__, "error": str(exc)[:2000]},
            )
            telemetry.count_rejected(handler)
    return out


# The JetStream context each host publishes through (nats-py directly: FastStream's publish
# path cost a large share of the CPU per trial).
_publishers: dict[int, Any] = {}
PUBLISH_TIMEOUT_S = 30.0


def _prepare(event: Event) -> tuple[bytes, dict[str, str]]:
    headers = {"Nats-Msg-Id": event.event_id, "content-type": "application/json"}
    telemetry.inject_context(headers)
    if not event.trace_context and "traceparent" in headers:
        event = event.model_copy(update={"trace_context": {"traceparent": headers["traceparent"]}})
    return event.model_dump_json().encode(), headers


async def publish(broker: NatsBroker, subject: str, event: Event, subjects: Subjects) -> None:
    """Publish one event to the stream, deduplicated by its event id; waits for the PubAck."""
    await publish_many(broker, subject, [event], subjects)


async def publish_many(
    broker: NatsBroker, subject: str, events: Sequence[Event], subjects: Subjects, window: int = 1024
) -> None:
    """Publish events to the stream (``window`` awaiting their PubAck at once), each
    deduplicated by its id; raises when the stream does not acknowledge them all in time."""
    js = _publishers.get(id(broker))
    for start in range(0, len(events), window):
        chunk = [_prepare(ev) for ev in events[start : start + window]]
        if js is None:  # a broker outside a ServiceHost (tests): FastStream's own publish
            await asyncio.gather(
                *(
                    broker.publish(data, subject, headers=headers, stream=subjects.stream)
                    for data, headers in chunk
                )
            )
            continue
        futures = [
            await js.publish_async(subject, data, stream=subjects.stream, headers=headers)
            for data, headers in chunk
        ]
        acks = await asyncio.wait_for(asyncio.gather(*futures), timeout=PUBLISH_TIMEOUT_S)
        for ack in acks:
            if getattr(ack, "stream", subjects.stream) != subjects.stream:
                raise RuntimeError(f"published to stream {ack.stream!r}, expected {subjects.stream!r}")
