"""Full traces too large for an event, in a JetStream object store bucket keyed by trial id.

The runner puts a trace here when its trial.completed would be too large for the bus, and
sends the event with a cut copy of the trace and a :class:`TraceRef`; the grader and the
transcript-store fetch the full trace back before they grade or store it. One bucket per
deployment (per stream), created on first use by whichever service needs it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any

from agenteval.contracts.errors import Unavailable
from agenteval.contracts.events import TraceRef, TrialCompleted
from agenteval.contracts.subjects import Subjects
from agenteval.contracts.trace import Trace

log = logging.getLogger("agenteval.transcripts")

# A fetch is part of a batch handler, which must finish well within the bus' ack wait.
GET_TIMEOUT_S = 15.0
# Objects go after a week, like the stream's events that refer to them.
BUCKET_TTL_S = 7 * 24 * 3600.0
# Full traces fetched at once for one batch (each may be megabytes).
FETCH_CONCURRENCY = 8


def bucket_name(subjects: Subjects) -> str:
    """The bucket of a deployment: named after its stream (``AGENTEVAL_TRANSCRIPTS``)."""
    return f"{subjects.stream}_TRANSCRIPTS"


class TranscriptBucket:
    """Puts and gets full traces; ``connection`` returns the NATS connection to use (or None
    while there is none yet), so the bucket can be made before its host connects."""

    def __init__(self, connection: Callable[[], Any], subjects: Subjects, replicas: int = 1) -> None:
        self._connection = connection
        self.replicas = replicas
        self.name = bucket_name(subjects)
        self._nc: Any = None
        self._stores: dict[str, Any] = {}
        self._lock = asyncio.Lock()

    async def _store(self, bucket: str) -> Any:
        from nats.js.errors import BadRequestError, BucketNotFoundError

        nc = self._connection()
        if nc is None or nc.is_closed:
            raise Unavailable("no NATS connection for the transcripts bucket")
        async with self._lock:
            if nc is not self._nc:  # a new connection: stores bound to the old one are useless
                self._nc, self._stores = nc, {}
            store = self._stores.get(bucket)
            if store is None:
                js = nc.jetstream()
                try:
                    store = await js.object_store(bucket)
                except BucketNotFoundError:
                    if bucket != self.name:  # only our own bucket is ours to create
                        raise
                    try:
                        from nats.js.api import ObjectStoreConfig

                        # A transport, not the record (the transcript store keeps the full trace).
                        config = ObjectStoreConfig(bucket=bucket, ttl=BUCKET_TTL_S, replicas=self.replicas)
                        store = await js.create_object_store(bucket, config=config)
                    except BadRequestError:  # another service created it meanwhile
                        store = await js.object_store(bucket)
                self._stores[bucket] = store
            return store

    async def put(self, trial_id: str, trace: Trace) -> TraceRef:
        """Store the full trace under the trial id (a trial run again replaces it)."""
        data = trace.model_dump_json().encode()
        store = await self._store(self.name)
        await store.put(trial_id, data)
        return TraceRef(bucket=self.name, key=trial_id, size_bytes=len(data))

    async def get(self, ref: TraceRef) -> Trace:
        """The full trace a reference points to; raises when it cannot be had."""
        store = await self._store(ref.bucket)
        result = await asyncio.wait_for(store.get(ref.key), GET_TIMEOUT_S)
        return Trace.model_validate_json(result.data)


async def with_full_traces(
    bucket: TranscriptBucket | None, batch: Sequence[TrialCompleted]
) -> list[TrialCompleted]:
    """The batch with every cut trace replaced by its full trace from the bucket.

    A full trace that cannot be fetched leaves the event with its cut trace, whose metadata
    then says why (``full_trace_unavailable``): a trial is never dropped for it.
    """
    if all(done.full_trace is None for done in batch):
        return list(batch)
    limit = asyncio.Semaphore(FETCH_CONCURRENCY)

    async def full(done: TrialCompleted) -> TrialCompleted:
        ref = done.full_trace
        if ref is None:
            return done
        try:
            if bucket is None:
                raise Unavailable("no transcripts bucket here")
            async with limit:
                trace = await bucket.get(ref)
        except Exception as exc:
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            log.warning(
                "full trace unavailable; using the cut trace of the event",
                extra={"trial_id": done.trial_id, "bucket": ref.bucket, "error": reason},
            )
            cut = done.trace
            trace = cut.model_copy(update={"metadata": {**cut.metadata, "full_trace_unavailable": reason}})
        return done.model_copy(update={"trace": trace})

    return list(await asyncio.gather(*(full(done) for done in batch)))
