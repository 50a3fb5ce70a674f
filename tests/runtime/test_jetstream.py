"""The hot-path JetStream client over a real nats-server: streaming pulls and counted acks."""

from __future__ import annotations

import asyncio

import nats
import pytest
from nats.js.api import AckPolicy, ConsumerConfig, StreamConfig

from agenteval.runtime.jetstream import AckedPublisher, PublishError, PullFeed, ack_all, nak_all


@pytest.fixture
async def js_stream(nats_url: str, bus_prefix: str):
    nc = await nats.connect(nats_url)
    js = nc.jetstream()
    stream = bus_prefix.upper()
    await js.add_stream(StreamConfig(name=stream, subjects=[f"{bus_prefix}.>"], duplicate_window=60))
    try:
        yield nc, js, stream
    finally:
        await js.delete_stream(stream)
        await nc.close()


async def _consumer(js, stream: str, name: str, ack_wait: float = 30.0) -> None:
    await js.add_consumer(
        stream, ConsumerConfig(durable_name=name, ack_policy=AckPolicy.EXPLICIT, ack_wait=ack_wait)
    )


async def _drain(feed: PullFeed, n: int, timeout: float = 5.0) -> list:
    got: list = []
    async with asyncio.timeout(timeout):
        while len(got) < n:
            got += await feed.take(n - len(got), timeout=1.0)
    return got


async def test_publisher_waits_for_every_ack_and_dedupes_by_msg_id(js_stream, bus_prefix):
    nc, js, stream = js_stream
    pub = AckedPublisher(nc)
    await pub.start()
    items = [(f"m{i}".encode(), {"Nats-Msg-Id": f"id-{i}"}) for i in range(300)]
    await pub.publish(f"{bus_prefix}.x", items, stream, timeout=10)
    await pub.publish(f"{bus_prefix}.x", items[:50], stream, timeout=10)  # redelivered handler: duplicates
    info = await js.stream_info(stream)
    assert info.state.messages == 300, "every message stored once, duplicates dropped by Nats-Msg-Id"
    await pub.stop()


async def test_publisher_raises_when_no_stream_takes_the_subject(js_stream, bus_prefix):
    nc, _js, stream = js_stream
    pub = AckedPublisher(nc)
    await pub.start()
    with pytest.raises(PublishError, match="no stream acknowledged"):
        await pub.publish(f"nostream{bus_prefix}.x", [(b"x", {"Nats-Msg-Id": "a"})], stream, timeout=5)
    await pub.stop()


async def test_feed_streams_messages_without_waiting_for_a_full_batch(js_stream, bus_prefix):
    nc, js, stream = js_stream
    await _consumer(js, stream, "c1")
    for i in range(3):
        await js.publish(f"{bus_prefix}.x", f"m{i}".encode())
    feed = PullFeed(nc, stream, "c1", expires_s=30)
    await feed.start()
    await feed.ask(100)
    got = await _drain(feed, 3, timeout=2.0)  # far less than the request's 30 s expiry
    assert [m.data for m in got] == [b"m0", b"m1", b"m2"]
    assert feed.credit == 97, "three of the hundred asked for were delivered"
    await ack_all(nc, got)
    await js.publish(f"{bus_prefix}.x", b"late")  # arrives through the request still open
    assert [m.data for m in await _drain(feed, 1)] == [b"late"]
    await feed.stop()


async def test_an_expired_request_gives_back_its_credit(js_stream, bus_prefix):
    nc, js, stream = js_stream
    await _consumer(js, stream, "c2")
    feed = PullFeed(nc, stream, "c2", expires_s=0.3)
    await feed.start()
    await feed.ask(10)
    assert feed.credit == 10
    async with asyncio.timeout(5):
        while feed.credit:
            await feed.take(10, timeout=0.5)
    assert not feed.buffer
    await feed.stop()


async def test_nak_redelivers_and_ack_does_not(js_stream, bus_prefix):
    nc, js, stream = js_stream
    await _consumer(js, stream, "c3", ack_wait=30)
    await js.publish(f"{bus_prefix}.x", b"a")
    await js.publish(f"{bus_prefix}.x", b"b")
    feed = PullFeed(nc, stream, "c3", expires_s=2)
    await feed.start()
    await feed.ask(2)
    first = await _drain(feed, 2)
    await ack_all(nc, [first[0]])
    await nak_all(nc, [first[1]], delay_s=0.1)
    await feed.ask(5)
    again = await _drain(feed, 1)
    assert [m.data for m in again] == [b"b"], "only the nak'd message comes back"
    await ack_all(nc, again)
    await nc.flush()
    async with asyncio.timeout(5):  # the server takes acks in its own time
        while (info := await js.consumer_info(stream, "c3")).num_ack_pending:
            await asyncio.sleep(0.05)
    assert info.num_ack_pending == 0 and info.num_pending == 0
    await feed.stop()


async def test_the_stream_keeps_events_for_a_limited_time_and_an_old_stream_is_aligned(
    nats_url: str, bus_prefix: str
) -> None:
    from agenteval.contracts.subjects import Subjects
    from agenteval.runtime.bus import ensure_stream

    subjects = Subjects(bus_prefix)
    nc = await nats.connect(nats_url)
    js = nc.jetstream()
    try:
        # As an older version made it: no age limit.
        await js.add_stream(StreamConfig(name=subjects.stream, subjects=[subjects.all], duplicate_window=60))
        await js.publish(f"{bus_prefix}.x.y", b"kept")
        await ensure_stream(js, subjects, max_age_s=3600)
        info = await js.stream_info(subjects.stream)
        assert info.config.max_age == 3600
        assert info.state.messages == 1, "aligning the age limit keeps what the stream holds"
    finally:
        await js.delete_stream(subjects.stream)
        await nc.close()


async def test_a_batch_slower_than_the_ack_wait_is_handled_once(nats_url: str, bus_prefix: str) -> None:
    """In-progress acks keep a slow batch (LLM judges, eval functions) from redelivery."""
    from agenteval.contracts.events import RunCancelled
    from agenteval.contracts.subjects import Subjects
    from agenteval.runtime.bus import BatchConsumers, batch_subscriber, make_broker, publish_many

    subjects = Subjects(bus_prefix)
    broker = make_broker(nats_url)
    seen: list[bytes] = []

    @batch_subscriber(broker, subjects.run_cancelled, subjects, durable="slow", batch_size=8, ack_wait_s=1.0)
    async def slow(payloads: list[bytes]) -> None:
        seen.extend(payloads)
        await asyncio.sleep(2.5)

    consumers = BatchConsumers(broker, nats_url)
    await consumers.start()
    try:
        events = [RunCancelled(event_id=f"e{i}", run_id=f"r{i}") for i in range(3)]
        await publish_many(broker, subjects.run_cancelled, events, subjects)
        await asyncio.sleep(4.0)
        assert len(seen) == 3, f"{len(seen)} deliveries of 3 messages: a running batch was redelivered"
    finally:
        await consumers.stop()
        nc = await nats.connect(nats_url)
        await nc.jetstream().delete_stream(subjects.stream)
        await nc.close()


async def test_messages_arriving_during_a_slow_batch_are_handled_once(nats_url: str, bus_prefix: str) -> None:
    """What streams in while a batch runs waits in the feed's buffer; it must not be redelivered."""
    from agenteval.contracts.events import RunCancelled
    from agenteval.contracts.subjects import Subjects
    from agenteval.runtime.bus import BatchConsumers, batch_subscriber, make_broker, publish_many

    subjects = Subjects(bus_prefix)
    broker = make_broker(nats_url)
    seen: list[bytes] = []
    first = asyncio.Event()

    @batch_subscriber(broker, subjects.run_cancelled, subjects, durable="slow", batch_size=8, ack_wait_s=1.0)
    async def slow(payloads: list[bytes]) -> None:
        seen.extend(payloads)
        first.set()
        await asyncio.sleep(2.5)

    consumers = BatchConsumers(broker, nats_url)
    await consumers.start()
    try:
        await publish_many(
            broker, subjects.run_cancelled, [RunCancelled(event_id="e0", run_id="r0")], subjects
        )
        await asyncio.wait_for(first.wait(), 5.0)
        later = [RunCancelled(event_id=f"e{i}", run_id=f"r{i}") for i in (1, 2)]
        await publish_many(broker, subjects.run_cancelled, later, subjects)
        await asyncio.sleep(6.0)  # the first batch ends at 2.5 s, the second at 5 s
        ids = sorted(RunCancelled.model_validate_json(p).event_id for p in seen)
        assert ids == ["e0", "e1", "e2"], f"deliveries {ids}: a waiting message was redelivered"
    finally:
        await consumers.stop()
        nc = await nats.connect(nats_url)
        await nc.jetstream().delete_stream(subjects.stream)
        await nc.close()


async def test_batches_in_flight_let_the_next_batch_start_while_one_waits(
    nats_url: str, bus_prefix: str
) -> None:
    """The grader's batches are independent: one waiting on the sandbox must not hold the next."""
    from agenteval.contracts.events import RunCancelled
    from agenteval.contracts.subjects import Subjects
    from agenteval.runtime.bus import BatchConsumers, batch_subscriber, make_broker, publish_many

    subjects = Subjects(bus_prefix)
    broker = make_broker(nats_url)
    release = asyncio.Event()
    batches: list[list[str]] = []
    second = asyncio.Event()

    @batch_subscriber(
        broker, subjects.run_cancelled, subjects, durable="two", batch_size=8, batches_in_flight=2
    )
    async def handle(payloads: list[bytes]) -> None:
        batches.append([RunCancelled.model_validate_json(p).event_id for p in payloads])
        if len(batches) == 1:
            await release.wait()  # the first batch waits (on a sandbox, say)
        else:
            second.set()

    consumers = BatchConsumers(broker, nats_url)
    await consumers.start()
    try:
        await publish_many(broker, subjects.run_cancelled, [RunCancelled(event_id="a", run_id="r")], subjects)
        async with asyncio.timeout(5):
            while not batches:
                await asyncio.sleep(0.01)
        await publish_many(broker, subjects.run_cancelled, [RunCancelled(event_id="b", run_id="r")], subjects)
        await asyncio.wait_for(second.wait(), 5.0)  # handled while the first still waits
        assert batches == [["a"], ["b"]]
        release.set()
    finally:
        release.set()
        await consumers.stop()
        nc = await nats.connect(nats_url)
        await nc.jetstream().delete_stream(subjects.stream)
        await nc.close()
