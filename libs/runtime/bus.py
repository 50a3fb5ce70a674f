"""The bus: one JetStream stream, durable pull consumers, deduplicated publishes.

Handlers take batches (``list[dict]``) and validate each payload themselves, so one bad
message is rejected alone instead of poisoning its batch; publishes go out concurrently
and carry the event id as ``Nats-Msg-Id`` so a redelivered handler that publishes again
is deduplicated by JetStream.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, TypeVar

from faststream import AckPolicy
from faststream.nats import ConsumerConfig, JStream, NatsBroker, PullSub
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


def _logged(durable: str, decorator: Callable[[Handler], Any]) -> Callable[[Handler], Any]:
    """Log a handler's failure (the broker itself logs nothing per message) and let it nack."""

    def wrap(fn: Handler) -> Any:
        @functools.wraps(fn)
        async def handler(*args: Any, **kwargs: Any) -> None:
            # The broker calls by the wrapped handler's parameter names: pass them through.
            try:
                await fn(*args, **kwargs)
            except Exception:
                log.exception("handler failed; its messages will be redelivered", extra={"handler": durable})
                raise

        return decorator(handler)

    return wrap


def batch_subscriber(
    broker: NatsBroker,
    subject: str,
    subjects: Subjects,
    durable: str,
    batch_size: int = 256,
    timeout_s: float = 0.5,
) -> Callable[[Handler], Any]:
    """Decorator: a durable pull consumer handing batches of raw payloads to the handler.

    FastStream keeps fetching until the batch is full or ``timeout_s`` passes; very short
    timeouts (tens of ms) made it issue fetches that expire as messages arrive, and those
    messages then waited for ack_wait before redelivery. Half a second avoids that.
    """
    return _logged(
        durable,
        broker.subscriber(
            subject,
            stream=stream_for(subjects),
            durable=durable,
            config=consumer_config(),
            pull_sub=PullSub(batch_size=batch_size, timeout=timeout_s, batch=True),
            ack_policy=AckPolicy.NACK_ON_ERROR,
        ),
    )


def concurrent_subscriber(
    broker: NatsBroker,
    subject: str,
    subjects: Subjects,
    durable: str,
    max_workers: int,
) -> Callable[[Handler], Any]:
    """Decorator: a durable pull consumer running up to ``max_workers`` handlers at once."""
    return _logged(
        durable,
        broker.subscriber(
            subject,
            stream=stream_for(subjects),
            durable=durable,
            config=consumer_config(max_ack_pending=max(1000, max_workers * 4), ack_wait_s=TRIAL_ACK_WAIT_S),
            pull_sub=PullSub(batch_size=min(max_workers, 256), timeout=1.0),
            max_workers=max_workers,
            ack_policy=AckPolicy.NACK_ON_ERROR,
        ),
    )


def parse_batch(model: type[M], payloads: Iterable[object], handler: str) -> list[M]:
    """Validate each payload; a payload that does not fit is logged and dropped (rejected)."""
    out: list[M] = []
    for payload in payloads:
        try:
            out.append(model.model_validate(payload))
        except ValidationError as exc:
            log.error(
                "rejected invalid payload",
                extra={"handler": handler, "model": model.__name__, "error": str(exc)[:2000]},
            )
            telemetry.count_rejected(handler)
    return out


async def publish(broker: NatsBroker, subject: str, event: Event, subjects: Subjects) -> None:
    """Publish one event to the stream, deduplicated by its event id; waits for the PubAck."""
    headers = {"Nats-Msg-Id": event.event_id}
    telemetry.inject_context(headers)
    await broker.publish(event, subject, headers=headers, stream=subjects.stream)


async def publish_many(
    broker: NatsBroker, subject: str, events: Sequence[Event], subjects: Subjects, window: int = 512
) -> None:
    """Publish many events concurrently (``window`` in flight), each deduplicated by id."""
    for start in range(0, len(events), window):
        chunk = events[start : start + window]
        await asyncio.gather(*(publish(broker, subject, ev, subjects) for ev in chunk))
