"""Dead letters: the bus messages a handler gave up on, listed and replayed (OperationsService).

They are kept on the bus stream itself (``<prefix>.delivery.failed``, one ``DeliveryFailed``
each, see ``agenteval.runtime.bus``), for as long as the stream keeps events. Every service
host serves this, so whichever address an operator has answers.
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from nats.errors import TimeoutError as NatsTimeoutError
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from pydantic import ValidationError

from agenteval.contracts.errors import InvalidArgument, NotFound, Unavailable
from agenteval.contracts.events import DeliveryFailed
from agenteval.contracts.subjects import Subjects
from agenteval.v1 import operations_pb2, operations_pb2_grpc

log = logging.getLogger("agenteval.dead_letters")

PREVIEW_CHARS = 2000
MOST = 10_000


def _to_pb(seq: int, ev: DeliveryFailed) -> operations_pb2.DeadLetter:
    return operations_pb2.DeadLetter(
        seq=seq,
        handler=ev.handler,
        subject=ev.subject,
        original_seq=ev.stream_seq,
        deliveries=ev.deliveries,
        error=ev.error,
        error_id=ev.error_id,
        recorded=ev.recorded,
        occurred_at=ev.occurred_at.isoformat(),
        data_preview=ev.data[:PREVIEW_CHARS],
    )


class DeadLetters:
    """Reads and replays ``<prefix>.delivery.failed`` over a host's NATS connection."""

    def __init__(self, nc: Any, subjects: Subjects) -> None:
        self.nc = nc
        self.subjects = subjects

    async def list(self, handler: str = "", limit: int = 100) -> list[tuple[int, DeliveryFailed]]:
        js = self.nc.jetstream()
        config = ConsumerConfig(
            deliver_policy=DeliverPolicy.ALL,
            ack_policy=AckPolicy.NONE,
            inactive_threshold=30.0,
            mem_storage=True,
            num_replicas=1,
        )
        sub = await js.pull_subscribe(
            self.subjects.delivery_failed, stream=self.subjects.stream, config=config
        )
        found: list[tuple[int, DeliveryFailed]] = []
        try:
            while len(found) < MOST:
                try:
                    msgs = await sub.fetch(batch=256, timeout=0.5)
                except (NatsTimeoutError, TimeoutError):
                    break
                for msg in msgs:
                    try:
                        ev = DeliveryFailed.model_validate_json(msg.data)
                    except ValidationError:
                        continue
                    if not handler or ev.handler == handler:
                        found.append((msg.metadata.sequence.stream, ev))
        finally:
            try:
                await sub.unsubscribe()
                await js.delete_consumer(self.subjects.stream, sub._consumer)
            except Exception:
                pass
        return found[-limit:] if limit > 0 else found

    async def get(self, seq: int) -> DeliveryFailed:
        js = self.nc.jetstream()
        try:
            raw = await js.get_msg(self.subjects.stream, seq=seq)
        except Exception as exc:
            raise NotFound(f"no message {seq} on the bus stream ({type(exc).__name__})") from None
        if raw.subject != self.subjects.delivery_failed:
            raise InvalidArgument(f"message {seq} is not a dead letter (it is on {raw.subject})")
        return DeliveryFailed.model_validate_json(raw.data or b"{}")

    async def replay(self, seq: int) -> DeliveryFailed:
        ev = await self.get(seq)
        js = self.nc.jetstream()
        headers = {"Nats-Msg-Id": f"replay:{seq}:{secrets.token_hex(4)}"}  # a new message, not a duplicate
        try:
            await js.publish(ev.subject, ev.data.encode(), stream=self.subjects.stream, headers=headers)
        except Exception as exc:
            raise Unavailable(f"the bus did not take the replayed message: {exc}") from None
        log.warning("dead letter %d replayed on %s", seq, ev.subject, extra={"handler": ev.handler})
        return ev


class OperationsServicer(operations_pb2_grpc.OperationsServiceServicer):
    """A thin servicer over :class:`DeadLetters`."""

    def __init__(self, dead_letters: Any) -> None:
        self.dead_letters = dead_letters  # a DeadLetters, or a callable giving one once started

    def _letters(self) -> DeadLetters:
        letters = self.dead_letters() if callable(self.dead_letters) else self.dead_letters
        if letters is None:
            raise Unavailable("the service is not connected to the bus yet")
        return letters

    async def ListDeadLetters(
        self, request: operations_pb2.ListDeadLettersRequest, context: Any
    ) -> operations_pb2.ListDeadLettersResponse:
        if request.limit < 0:
            raise InvalidArgument(f"limit must be 0 (100) or more, got {request.limit}")
        found = await self._letters().list(request.handler, request.limit or 100)
        return operations_pb2.ListDeadLettersResponse(dead_letters=[_to_pb(seq, ev) for seq, ev in found])

    async def ReplayDeadLetter(
        self, request: operations_pb2.ReplayDeadLetterRequest, context: Any
    ) -> operations_pb2.ReplayDeadLetterResponse:
        if request.seq <= 0:
            raise InvalidArgument("seq: give the dead letter's seq from ListDeadLetters")
        ev = await self._letters().replay(request.seq)
        return operations_pb2.ReplayDeadLetterResponse(dead_letter=_to_pb(request.seq, ev))
