"""Failures are data: a message its handler cannot process never takes its batch-mates with
it, and after the delivery limit it is recorded by its service and kept for replay."""

from __future__ import annotations

import asyncio
import contextlib

import nats
import pytest

from agenteval.contracts.events import DeliveryFailed, RunCancelled
from agenteval.contracts.subjects import Subjects
from agenteval.runtime.bus import (
    BatchConsumers,
    batch_subscriber,
    concurrent_subscriber,
    make_broker,
    publish_many,
)


async def _dead_letters(nats_url: str, subjects: Subjects) -> list[DeliveryFailed]:
    nc = await nats.connect(nats_url)
    try:
        js = nc.jetstream()
        sub = await js.subscribe(subjects.delivery_failed, stream=subjects.stream, ordered_consumer=True)
        out: list[DeliveryFailed] = []
        try:
            while True:
                msg = await sub.next_msg(timeout=1.0)
                out.append(DeliveryFailed.model_validate_json(msg.data))
        except nats.errors.TimeoutError:
            pass
        await sub.unsubscribe()
        return out
    finally:
        await nc.close()


async def _cleanup(nats_url: str, subjects: Subjects) -> None:
    nc = await nats.connect(nats_url)
    try:
        await nc.jetstream().delete_stream(subjects.stream)
    finally:
        await nc.close()


async def test_a_poison_message_fails_alone_and_is_dead_lettered_with_its_record(
    nats_url: str, bus_prefix: str
) -> None:
    subjects = Subjects(bus_prefix)
    broker = make_broker(nats_url)
    handled: list[str] = []
    recorded: list[tuple[str, str]] = []

    async def record_failure(payload: bytes, reason: str) -> None:
        recorded.append((RunCancelled.model_validate_json(payload).run_id, reason))

    @batch_subscriber(
        broker, subjects.run_cancelled, subjects, durable="t-batch", batch_size=32, on_dead=record_failure
    )
    async def handler(payloads: list[bytes]) -> None:
        events = [RunCancelled.model_validate_json(p) for p in payloads]
        if any(ev.run_id == "poison" for ev in events):
            raise ValueError("value out of range for a 32-bit column")
        handled.extend(ev.run_id for ev in events)

    consumers = BatchConsumers(broker, nats_url, max_deliver=3, retry_max_delay_s=0.2)
    await consumers.start()
    try:
        events = [RunCancelled(event_id=f"e{i}", run_id=f"r{i}") for i in range(10)]
        events.insert(4, RunCancelled(event_id="bad", run_id="poison"))
        await publish_many(broker, subjects.run_cancelled, events, subjects)
        for _ in range(200):
            if recorded and len(handled) >= 10:
                break
            await asyncio.sleep(0.05)
        assert sorted(handled) == sorted(f"r{i}" for i in range(10)), (
            "innocent batch-mates must be handled once"
        )
        assert [run for run, _ in recorded] == ["poison"]
        assert "32-bit column" in recorded[0][1] and "error id" in recorded[0][1]
        (dead,) = await _dead_letters(nats_url, subjects)
        assert dead.handler == "t-batch" and dead.deliveries == 3 and dead.recorded
        assert RunCancelled.model_validate_json(dead.data).run_id == "poison"
        assert dead.subject == subjects.run_cancelled and "32-bit column" in dead.error
        await asyncio.sleep(1.0)
        assert len(recorded) == 1, "a dead-lettered message must not come back"
    finally:
        await consumers.stop()
        await _cleanup(nats_url, subjects)


async def test_a_failure_that_cannot_be_recorded_is_kept_not_dropped(nats_url: str, bus_prefix: str) -> None:
    """When even the record of the failure cannot be written (the database is down), the
    message stays on the bus and is tried again: it is never silently dropped."""
    subjects = Subjects(bus_prefix)
    broker = make_broker(nats_url)
    attempts: list[int] = []
    database_up = asyncio.Event()
    recorded: list[str] = []

    async def record_failure(payload: bytes, reason: str) -> None:
        if not database_up.is_set():
            raise ConnectionError("database unavailable")
        recorded.append(reason)

    @concurrent_subscriber(
        broker, subjects.run_cancelled, subjects, durable="t-one", max_workers=4, on_dead=record_failure
    )
    async def handler(payload: bytes) -> None:
        attempts.append(1)
        raise ConnectionError("database unavailable")

    consumers = BatchConsumers(broker, nats_url, max_deliver=2, retry_max_delay_s=0.3)
    await consumers.start()
    try:
        await publish_many(broker, subjects.run_cancelled, [RunCancelled(event_id="x", run_id="x")], subjects)
        for _ in range(100):
            if len(attempts) >= 4:
                break
            await asyncio.sleep(0.05)
        assert len(attempts) >= 4 and not recorded, (
            "the message must keep coming back while it cannot be recorded"
        )
        database_up.set()
        for _ in range(100):
            if recorded:
                break
            await asyncio.sleep(0.05)
        assert len(recorded) == 1
        (dead,) = await _dead_letters(nats_url, subjects)
        assert dead.recorded and dead.handler == "t-one"
    finally:
        await consumers.stop()
        await _cleanup(nats_url, subjects)


def test_nats_settings_take_a_cluster_credentials_and_tls(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Services take a list of NATS URLs and connect with credentials and TLS when configured."""
    import ssl

    from agenteval.runtime.settings import CommonSettings

    creds = tmp_path / "svc.creds"
    creds.write_text("-----BEGIN NATS USER JWT-----\nx\n------END NATS USER JWT------\n")
    monkeypatch.setenv("AGENTEVAL_NATS_URL", "nats://a:4222, nats://b:4222,nats://c:4222")
    monkeypatch.setenv("AGENTEVAL_NATS_USER", "svc")
    monkeypatch.setenv("AGENTEVAL_NATS_PASSWORD", "s3cret")
    monkeypatch.setenv("AGENTEVAL_NATS_CREDS", str(creds))
    opts = CommonSettings().nats_options()
    assert opts["servers"] == ["nats://a:4222", "nats://b:4222", "nats://c:4222"]
    assert (opts["user"], opts["password"], opts["user_credentials"]) == ("svc", "s3cret", str(creds))
    assert "tls" not in opts
    import certifi  # a CA bundle that exists on this machine

    monkeypatch.setenv("AGENTEVAL_NATS_TLS_CA", certifi.where())
    assert isinstance(CommonSettings().nats_options()["tls"], ssl.SSLContext)


async def test_a_service_connects_to_nats_with_a_user_and_password(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A real nats-server that demands a user: the host connects with the configured one."""
    from agenteval.runtime.host import ServiceHost
    from agenteval.runtime.nats_server import free_port, nats_server_binary
    from agenteval.runtime.settings import CommonSettings

    port = free_port()
    conf = tmp_path / "nats.conf"
    conf.write_text(
        f'port: {port}\nhost: "127.0.0.1"\njetstream {{ store_dir: "{tmp_path / "js"}" }}\n'
        "authorization { user: svc, password: s3cret }\n"
    )
    server = await asyncio.create_subprocess_exec(
        str(nats_server_binary()), "-c", str(conf), "-a", "127.0.0.1"
    )
    try:
        for _ in range(300):  # until it listens
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                break
            except OSError:
                await asyncio.sleep(0.1)
        good = CommonSettings(nats_url=f"nats://127.0.0.1:{port}", nats_user="svc", nats_password="s3cret")
        host = ServiceHost([], good, "127.0.0.1:0")
        await asyncio.wait_for(host.start(), 60)
        await host.stop()
        bad = CommonSettings(nats_url=f"nats://127.0.0.1:{port}", nats_user="svc", nats_password="wrong")
        with pytest.raises(Exception):
            await asyncio.wait_for(ServiceHost([], bad, "127.0.0.1:0").start(), 10)
    finally:
        with contextlib.suppress(ProcessLookupError):
            server.terminate()
        await server.wait()


class _Fragile:
    """A component whose handler fails on one message, to fill the dead letters."""

    name = "fragile"

    def __init__(self, subjects: Subjects) -> None:
        self.subjects = subjects
        self.handled: list[str] = []
        self.fixed = False

    async def prepare(self) -> None:
        pass

    def register_handlers(self, broker) -> None:  # type: ignore[no-untyped-def]
        @batch_subscriber(broker, self.subjects.run_cancelled, self.subjects, durable="fragile-cancelled")
        async def handler(payloads: list[bytes]) -> None:
            for p in payloads:
                ev = RunCancelled.model_validate_json(p)
                if ev.run_id == "poison" and not self.fixed:
                    raise RuntimeError("cannot handle poison yet")
                self.handled.append(ev.run_id)

    def register_grpc(self, server) -> None:  # type: ignore[no-untyped-def]
        pass

    async def started(self, host) -> None:  # type: ignore[no-untyped-def]
        pass

    async def close(self) -> None:
        pass


async def test_dead_letters_are_listed_and_replayed_over_grpc(nats_url: str, bus_prefix: str) -> None:
    import grpc

    from agenteval.runtime.host import ServiceHost
    from agenteval.runtime.settings import CommonSettings
    from agenteval.v1 import operations_pb2, operations_pb2_grpc

    settings = CommonSettings(
        nats_url=nats_url, bus_prefix=bus_prefix, bus_max_deliver=2, bus_retry_max_delay_s=0.2
    )
    subjects = settings.subjects
    fragile = _Fragile(subjects)
    host = ServiceHost([fragile], settings, "127.0.0.1:0")
    await host.start()
    try:
        events = [RunCancelled(event_id="p", run_id="poison"), RunCancelled(event_id="f", run_id="fine")]
        await publish_many(host.broker, subjects.run_cancelled, events, subjects)
        async with grpc.aio.insecure_channel(host.target) as ch:
            ops = operations_pb2_grpc.OperationsServiceStub(ch)
            letters: list = []
            for _ in range(100):
                letters = list(
                    (await ops.ListDeadLetters(operations_pb2.ListDeadLettersRequest())).dead_letters
                )
                if letters:
                    break
                await asyncio.sleep(0.1)
            (letter,) = letters
            assert letter.handler == "fragile-cancelled" and letter.deliveries == 2 and not letter.recorded
            assert "cannot handle poison yet" in letter.error and '"poison"' in letter.data_preview
            assert "fine" in fragile.handled and "poison" not in fragile.handled

            fragile.fixed = True  # "the fix is deployed": the handler takes it now
            await ops.ReplayDeadLetter(operations_pb2.ReplayDeadLetterRequest(seq=letter.seq))
            for _ in range(100):
                if fragile.handled.count("poison") == 1:
                    break
                await asyncio.sleep(0.1)
            assert fragile.handled.count("poison") == 1, fragile.handled

            with pytest.raises(grpc.aio.AioRpcError) as info:
                await ops.ReplayDeadLetter(operations_pb2.ReplayDeadLetterRequest(seq=10**9))
            assert info.value.code() == grpc.StatusCode.NOT_FOUND
    finally:
        await host.stop()
        await _cleanup(nats_url, subjects)
