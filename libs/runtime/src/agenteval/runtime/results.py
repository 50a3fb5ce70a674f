"""Reading result streams (``run.reported``) back from JetStream for WatchRun subscribers.

Each reader is an ephemeral pull consumer of its own on the bus stream, filtered to the
subjects it follows, that fetches only when its subscriber has taken what it had: a slow
subscriber holds one small batch in memory and catches up from the durable stream; it
never slows the run. Positions are JetStream stream sequences, so a subscriber that comes
back with the last sequence it saw resumes exactly there, across restarts of any process.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

from nats.errors import TimeoutError as NatsTimeoutError
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from pydantic import ValidationError

from agenteval.contracts.events import RunReported
from agenteval.contracts.subjects import Subjects

log = logging.getLogger("agenteval.results")

FETCH_BATCH = 64
RETRY_S = 0.5


@dataclass(frozen=True)
class Reported:
    """One result-stream message and its position in the stream."""

    seq: int
    event: RunReported


async def read_reports(
    nc: Any,
    subjects: Subjects,
    filter_subject: str,
    *,
    start_seq: int = 0,
    new_only: bool = False,
    idle_s: float = 2.0,
) -> AsyncGenerator[Reported | None, None]:
    """The messages on ``filter_subject`` in stream order, from ``start_seq`` (0: the first one,
    or only new ones with ``new_only``); ``None`` after every ``idle_s`` without a message, so
    the caller can look at stored state. Survives a NATS restart: the consumer is made again
    after the last message read, and so does the loss of its consumer (a cluster node dying)."""
    next_seq = start_seq
    while True:
        try:
            sub = await _subscribe(nc, subjects, filter_subject, next_seq, new_only and next_seq == 0)
        except Exception as exc:  # NATS restarting: try again, the position is kept
            log.warning("result stream: cannot subscribe to %s (%s); retrying", filter_subject, exc)
            await asyncio.sleep(RETRY_S)
            yield None
            continue
        try:
            while True:
                try:
                    msgs = await sub.fetch(batch=FETCH_BATCH, timeout=idle_s)
                except (NatsTimeoutError, TimeoutError):
                    # Quiet, or the reader's consumer is gone (its node of a cluster died,
                    # the server lost it): this raises then, and the reader is made again.
                    await asyncio.wait_for(sub.consumer_info(), idle_s)
                    yield None
                    continue
                for msg in msgs:
                    seq = msg.metadata.sequence.stream
                    next_seq = seq + 1
                    try:
                        event = RunReported.model_validate_json(msg.data)
                    except ValidationError:
                        log.warning("result stream: message %d is not a run report; skipped", seq)
                        continue
                    yield Reported(seq, event)
        except (asyncio.CancelledError, GeneratorExit):
            raise
        except Exception as exc:
            log.warning("result stream: %s failed at %d (%s); resubscribing", filter_subject, next_seq, exc)
            await asyncio.sleep(RETRY_S)
        finally:
            await _close(sub)


async def _subscribe(nc: Any, subjects: Subjects, filter_subject: str, start_seq: int, new_only: bool) -> Any:
    js = nc.jetstream()
    if start_seq > 0:
        policy, opt = DeliverPolicy.BY_START_SEQUENCE, start_seq
    else:
        policy, opt = (DeliverPolicy.NEW if new_only else DeliverPolicy.ALL), None
    config = ConsumerConfig(
        deliver_policy=policy,
        opt_start_seq=opt,
        ack_policy=AckPolicy.NONE,
        inactive_threshold=60.0,  # a reader whose process died is cleaned up by the server
        mem_storage=True,
        num_replicas=1,
    )
    return await js.pull_subscribe(filter_subject, stream=subjects.stream, config=config)


async def _close(sub: Any) -> None:
    try:
        await sub.unsubscribe()
    except Exception:
        pass
    try:  # an ephemeral consumer would also go by itself after inactive_threshold
        await sub._js._jsm.delete_consumer(sub._stream, sub._consumer)
    except Exception:
        pass
